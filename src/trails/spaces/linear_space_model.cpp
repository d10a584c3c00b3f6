// The linear spaces (space_mode pca | tica): PCA / TICA fitted on the training memory's moments,
// with the MinMax scaling and the column selection folded into one map over all features.
#include <fmt/format.h>

#include <algorithm>

#include "trails/analysis/linear_projection.h"
#include "trails/analysis/pca.h"
#include "trails/analysis/tica.h"
#include "trails/analysis/vamp.h"
#include "trails/core/error.h"
#include "trails/core/thread_pool.h"
#include "trails/spaces/space_model.h"
#include "trails/spaces/space_trainers.h"

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

constexpr std::size_t kProjectRows = 4096;  // rows per pool chunk

// CVs j0 .. j0 + K (those below k) of rows [begin, end): y_j = sum_i (x_i - mean_i) w_ij, summed
// over the features i in a fixed order, so a row's CVs depend on nothing else (not the batch,
// not the threads, not K).
template <std::size_t K>
void project_rows(const double* x, const double* mean, const double* w, std::size_t d,
                  std::size_t k, std::size_t begin, std::size_t end, double* out,
                  std::size_t j0 = 0) {
  const std::size_t kk = std::min(K, k - j0);
  for (std::size_t r = begin; r < end; ++r) {
    const double* row = x + r * d;
    double acc[K] = {};
    for (std::size_t i = 0; i < d; ++i) {
      const double xi = row[i] - mean[i];
      for (std::size_t j = 0; j < K; ++j) {
        if (j < kk) acc[j] += xi * w[(j0 + j) * d + i];
      }
    }
    for (std::size_t j = 0; j < kk; ++j) out[r * k + j0 + j] = acc[j];
  }
}

class LinearSpaceModel final : public SpaceModel {
 public:
  explicit LinearSpaceModel(analysis::LinearProjection p) : p_(std::move(p)) {}
  int n_features() const override { return static_cast<int>(p_.coefficients.rows()); }
  int dim() const override { return static_cast<int>(p_.coefficients.cols()); }

  std::vector<double> project(std::span<const double> features, int n_threads) const override {
    const auto d = static_cast<std::size_t>(p_.coefficients.rows());
    const auto k = static_cast<std::size_t>(dim());
    const std::size_t n = features.size() / d;
    std::vector<double> out(n * k);
    const double* mean = p_.mean.data();
    const double* w = p_.coefficients.data();  // column-major d × k: column j at w + j d
    core::default_pool().parallel_for(
        n, kProjectRows,
        [&](std::size_t begin, std::size_t end) {
          switch (k) {  // accumulators in registers for the usual 1-3 learned dimensions
            case 1:
              project_rows<1>(features.data(), mean, w, d, k, begin, end, out.data());
              break;
            case 2:
              project_rows<2>(features.data(), mean, w, d, k, begin, end, out.data());
              break;
            case 3:
              project_rows<3>(features.data(), mean, w, d, k, begin, end, out.data());
              break;
            default:
              for (std::size_t j0 = 0; j0 < k; j0 += 4) {  // four CVs per pass over the row
                project_rows<4>(features.data(), mean, w, d, k, begin, end, out.data(), j0);
              }
          }
        },
        n_threads);
    return out;
  }

  std::optional<double> score(std::span<const double> features,
                              std::span<const std::int64_t> segments,
                              const SpaceMoments& m) const override {
    std::optional<RunningMoments> own;
    const RunningMoments* running = m.running();
    if (!running) {  // the reversible memory has no non-symmetric moments: this block's own
      const int d = n_features();
      const auto rows = static_cast<Eigen::Index>(features.size() / static_cast<std::size_t>(d));
      own.emplace(d, m.lagtime());
      own->add_segments(Eigen::Map<const analysis::FrameMatrix>(features.data(), rows, d), segments,
                        core::default_pool().size());
      running = &*own;
    }
    if (running->n_pairs() == 0) return std::nullopt;
    const auto cov = running->lagged({analysis::MeanRemoval::Separate, false});
    return analysis::vamp2_score(project_covariances(cov, p_));
  }

  nlohmann::json state() const override { return p_.to_flat(); }

 private:
  analysis::LinearProjection p_;
};

class LinearTrainer final : public SpaceTrainer {
 public:
  explicit LinearTrainer(std::string mode) : mode_(std::move(mode)) {}
  bool needs_rows() const override { return false; }
  bool overlaps_md() const override { return false; }

  std::unique_ptr<SpaceModel> train(const TrainingSet& set,
                                    learned::TrainingRecord& /*record*/) const override {
    const int d = set.n_features, k = set.dim;
    const std::vector<int>& cols = set.columns;
    analysis::LinearProjection fitted;
    if (mode_ == "tica") {
      analysis::TicaOptions o;
      o.dim = k;
      const auto cov = set.moments->reversible();
      fitted = analysis::fit_tica(scaled_columns(cov, cols, set.lo, set.scale), o).projection;
    } else {
      analysis::PcaOptions o;
      o.dim = k;
      const RunningMoments* running = set.moments->running();
      TRAILS_CHECK(running != nullptr, "PCA keeps the running moments");
      fitted = analysis::fit_pca(
                   scaled_columns(running->instantaneous(true), cols, set.lo, set.scale), o)
                   .projection;
    }
    if (fitted.output_dim() != k) {
      throw core::InputError(fmt::format(
          "space_mode {}: the sampled features span only {} independent direction(s), fewer "
          "than the {} learned dimension(s) len(n_bins) asks for; use fewer n_bins axes",
          mode_, fitted.output_dim(), k));
    }
    // Fold the scaling and the column selection into one map over all d features:
    // y = (x'_sel - m') W' = (x_sel - (lo + s m')) diag(1/s) W'; unselected rows are zero.
    analysis::LinearProjection p;
    p.mean = Eigen::VectorXd::Zero(d);
    p.coefficients = Eigen::MatrixXd::Zero(d, k);
    for (std::size_t i = 0; i < cols.size(); ++i) {
      const auto c = static_cast<std::size_t>(cols[i]);
      const auto ii = static_cast<Eigen::Index>(i);
      const auto cc = static_cast<Eigen::Index>(c);
      p.mean(cc) = set.lo[c] + set.scale[c] * fitted.mean(ii);
      for (int j = 0; j < k; ++j) p.coefficients(cc, j) = fitted.coefficients(ii, j) / set.scale[c];
    }
    return std::make_unique<LinearSpaceModel>(std::move(p));
  }

  std::unique_ptr<SpaceModel> restore(const nlohmann::json& state,
                                      const std::string& /*bytes*/) const override {
    return std::make_unique<LinearSpaceModel>(
        analysis::LinearProjection::from_flat(state.get<std::vector<double>>()));
  }

 private:
  std::string mode_;
};

}  // namespace

std::unique_ptr<SpaceTrainer> make_linear_trainer(const std::string& mode) {
  return std::make_unique<LinearTrainer>(mode);
}

}  // namespace trails::spaces
