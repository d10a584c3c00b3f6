// SpaceStage's learned projection: PCA / TICA fitted on the training memory, with the MinMax
// scaling and the column selection folded into one map over all features; the grid box of the
// re-projected frames; row-wise projection; the VAMP-2 score of the current model.
#include "trails/spaces/space_stage.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "trails/analysis/pca.h"
#include "trails/analysis/tica.h"
#include "trails/analysis/vamp.h"
#include "trails/core/error.h"

namespace trails::spaces {
namespace {

using analysis::RunningMoments;

// Covariances of y = (x - m) W from those of x: W^T C W (means projected likewise).
analysis::Covariances project_covariances(const analysis::Covariances& c,
                                          const analysis::LinearProjection& p) {
  const Eigen::MatrixXd& w = p.coefficients;
  analysis::Covariances out = c;
  out.mean_0 = w.transpose() * (c.mean_0 - p.mean);
  out.mean_t = w.transpose() * (c.mean_t - p.mean);
  out.c00 = w.transpose() * c.c00 * w;
  out.c0t = w.transpose() * c.c0t * w;
  out.ctt = w.transpose() * c.ctt * w;
  return out;
}

// The covariances of the scaled columns x'_i = (x_c - lo_c) / s_c, c = columns[i] (MinMax
// compat:feature-scaling, restricted to the selected columns).
analysis::Covariances scaled_columns(const analysis::Covariances& c,
                                     const std::vector<int>& columns, const std::vector<double>& lo,
                                     const std::vector<double>& s) {
  const auto n = static_cast<Eigen::Index>(columns.size());
  analysis::Covariances out;
  out.lagtime = c.lagtime;
  out.n_samples = c.n_samples;
  out.mean_removed = c.mean_removed;
  out.symmetrized = c.symmetrized;
  const auto sub_vec = [&](const Eigen::VectorXd& v, bool shift) {
    Eigen::VectorXd r(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const auto col = static_cast<std::size_t>(columns[static_cast<std::size_t>(i)]);
      r(i) = ((shift ? v(static_cast<Eigen::Index>(col)) - lo[col]
                     : v(static_cast<Eigen::Index>(col))) /
              s[col]);
    }
    return r;
  };
  const auto sub_mat = [&](const Eigen::MatrixXd& m) {
    if (m.size() == 0) return Eigen::MatrixXd();
    Eigen::MatrixXd r(n, n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const auto ci = static_cast<std::size_t>(columns[static_cast<std::size_t>(i)]);
      for (Eigen::Index j = 0; j < n; ++j) {
        const auto cj = static_cast<std::size_t>(columns[static_cast<std::size_t>(j)]);
        r(i, j) = m(static_cast<Eigen::Index>(ci), static_cast<Eigen::Index>(cj)) / (s[ci] * s[cj]);
      }
    }
    return r;
  };
  // A mean-free side has a zero mean vector: it stays zero (no shift).
  out.mean_0 = sub_vec(c.mean_0, c.mean_removed);
  if (c.mean_t.size() > 0) out.mean_t = sub_vec(c.mean_t, c.mean_removed);
  out.c00 = sub_mat(c.c00);
  out.c0t = sub_mat(c.c0t);
  out.ctt = sub_mat(c.ctt);
  return out;
}

}  // namespace

std::optional<double> SpaceStage::score(const RunningMoments& m) const {
  if (!projection_ || m.n_pairs() == 0) return std::nullopt;
  const auto cov = m.lagged({analysis::MeanRemoval::Separate, false});
  return analysis::vamp2_score(project_covariances(cov, *projection_));
}

std::vector<double> SpaceStage::project(std::span<const double> features) const {
  const auto& p = *projection_;
  const std::size_t n = features.size() / static_cast<std::size_t>(d_);
  std::vector<double> out(n * static_cast<std::size_t>(k_));
  for (std::size_t r = 0; r < n; ++r) {
    const double* x = features.data() + r * static_cast<std::size_t>(d_);
    for (int j = 0; j < k_; ++j) {
      double acc = 0.0;  // fixed order over features: independent of the batch size
      for (int i = 0; i < d_; ++i) acc += (x[i] - p.mean[i]) * p.coefficients(i, j);
      out[r * static_cast<std::size_t>(k_) + static_cast<std::size_t>(j)] = acc;
    }
  }
  return out;
}

void SpaceStage::fit(const Memory& training) {
  std::vector<int> cols;
  if (columns_) {
    cols = *columns_;
  } else {
    cols.resize(static_cast<std::size_t>(d_));
    std::iota(cols.begin(), cols.end(), 0);
  }
  // MinMax scaling with the training range; a constant feature keeps scale 1 (scikit-learn).
  std::vector<double> scale(static_cast<std::size_t>(d_), 1.0);
  for (int i = 0; i < d_; ++i) {
    const double r = training.hi[i] - training.lo[i];
    if (r > 0) scale[i] = r;
  }
  analysis::LinearProjection fitted;
  if (mode_ == "tica") {
    analysis::TicaOptions o;
    o.dim = k_;
    const auto cov = training.model.lagged({analysis::MeanRemoval::Separate, true});
    fitted = analysis::fit_tica(scaled_columns(cov, cols, training.lo, scale), o).projection;
  } else {
    analysis::PcaOptions o;
    o.dim = k_;
    fitted = analysis::fit_pca(
                 scaled_columns(training.model.instantaneous(true), cols, training.lo, scale), o)
                 .projection;
  }
  if (fitted.output_dim() != k_) {
    throw core::InputError(fmt::format(
        "space_mode {}: the sampled features span only {} independent direction(s), fewer "
        "than the {} learned dimension(s) len(n_bins) asks for; use fewer n_bins axes",
        mode_, fitted.output_dim(), k_));
  }
  // Fold the scaling and the column selection into one map over all d features:
  // y = (x'_sel - m') W' = (x_sel - (lo + s m')) diag(1/s) W'; unselected rows are zero.
  analysis::LinearProjection p;
  p.mean = Eigen::VectorXd::Zero(d_);
  p.coefficients = Eigen::MatrixXd::Zero(d_, k_);
  for (std::size_t i = 0; i < cols.size(); ++i) {
    const auto c = static_cast<std::size_t>(cols[i]);
    const auto ii = static_cast<Eigen::Index>(i);
    const auto cc = static_cast<Eigen::Index>(c);
    p.mean(cc) = training.lo[c] + scale[c] * fitted.mean(ii);
    for (int j = 0; j < k_; ++j) p.coefficients(cc, j) = fitted.coefficients(ii, j) / scale[c];
  }
  projection_ = std::move(p);
  ++version_;
  // Grid box: data bounds of every re-projected frame, widened by 10 % of the span
  // (compat:uniform-grid).
  lo_.assign(k_, std::numeric_limits<double>::infinity());
  hi_.assign(k_, -std::numeric_limits<double>::infinity());
  for (const auto& b : blocks_) {
    const auto y = project(b.features);
    for (std::size_t r = 0; r < y.size(); r += static_cast<std::size_t>(k_)) {
      for (int j = 0; j < k_; ++j) {
        lo_[j] = std::min(lo_[j], y[r + j]);
        hi_[j] = std::max(hi_[j], y[r + j]);
      }
    }
  }
  for (int j = 0; j < k_; ++j) {
    const double span = hi_[j] - lo_[j];
    const double pad = span > 0 ? 0.1 * span : 0.5;  // a constant projection still gets a box
    lo_[j] -= pad;
    hi_[j] += pad;
  }
}

}  // namespace trails::spaces
