// TICA: whitening with an eigenvalue cut, symmetric eigenproblem, scaling, output dimension.
#include "trails/analysis/tica.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <string>
#include <vector>

#include "trails/analysis/vamp.h"
#include "trails/core/error.h"

namespace trails::analysis {

namespace {

double timescale(double lambda, int lagtime) {
  const double a = std::abs(lambda);
  if (a >= 1.0) return std::numeric_limits<double>::infinity();
  if (a == 0.0) return 0.0;
  return -static_cast<double>(lagtime) / std::log(a);
}

}  // namespace

Eigen::VectorXd TicaModel::timescales() const {
  Eigen::VectorXd t(eigenvalues.size());
  for (Eigen::Index i = 0; i < t.size(); ++i) t(i) = timescale(eigenvalues(i), lagtime);
  return t;
}

Eigen::VectorXd TicaModel::cumulative_kinetic_variance() const {
  Eigen::VectorXd c(eigenvalues.size());
  double acc = 0;
  for (Eigen::Index i = 0; i < c.size(); ++i) c(i) = (acc += eigenvalues(i) * eigenvalues(i));
  if (acc > 0) c /= acc;
  return c;
}

TicaModel fit_tica(const Covariances& cov, const TicaOptions& options) {
  if (cov.lagtime < 1 || cov.c0t.size() == 0)
    throw core::InputError("fit_tica: expected time-lagged covariances (lagtime >= 1)");
  if (!cov.symmetrized)
    throw core::InputError(
        "fit_tica: expected symmetrised (reversible) covariances; use "
        "LaggedOptions{.symmetrize = true}");
  if (options.var_cutoff != -1 && !(options.var_cutoff > 0 && options.var_cutoff <= 1))
    throw core::InputError("fit_tica: expected var_cutoff in (0, 1], got " +
                           std::to_string(options.var_cutoff));
  if (options.dim == 0 || options.dim < -1)
    throw core::InputError("fit_tica: expected dim >= 1 or -1 (all), got " +
                           std::to_string(options.dim));
  const InverseSqrt w = spd_inverse_sqrt(cov.c00, options.epsilon, EpsilonRule::Absolute);
  if (w.rank() == 0)
    throw core::InputError(
        "fit_tica: all input features are constant (every eigenvalue of C00 "
        "is below epsilon = " +
        std::to_string(options.epsilon) + "), so no dimension is left");
  Eigen::MatrixXd ct = w.L.transpose() * cov.c0t * w.L;
  ct = 0.5 * (ct + ct.transpose());
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(ct);
  if (es.info() != Eigen::Success)
    throw core::InputError("fit_tica: eigen-decomposition did not converge");
  const Eigen::Index m = w.rank();
  std::vector<Eigen::Index> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), Eigen::Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
    return std::abs(es.eigenvalues()(a)) > std::abs(es.eigenvalues()(b));
  });
  TicaModel model;
  model.lagtime = cov.lagtime;
  model.rank = static_cast<int>(m);
  model.eigenvalues.resize(m);
  model.eigenvectors.resize(cov.c00.rows(), m);
  for (Eigen::Index j = 0; j < m; ++j) {
    const Eigen::Index src = order[static_cast<std::size_t>(j)];
    model.eigenvalues(j) = es.eigenvalues()(src);
    Eigen::VectorXd r = w.L * es.eigenvectors().col(src);
    Eigen::Index imax = 0;
    r.cwiseAbs().maxCoeff(&imax);
    if (r(imax) < 0) r = -r;
    model.eigenvectors.col(j) = r;
  }
  // Output dimension, as deeptime's CovarianceKoopmanModel.effective_output_dimension.
  if (options.var_cutoff > 0 && options.var_cutoff < 1) {
    const Eigen::VectorXd cv = model.cumulative_kinetic_variance();
    int k = 0;
    while (k < m && cv(k) < options.var_cutoff) ++k;  // searchsorted(left) + 1
    model.dim = std::min<int>(k + 1, static_cast<int>(m));
  } else if (options.var_cutoff == 1 || options.dim == -1) {
    model.dim = static_cast<int>(m);
  } else {
    model.dim = std::min<int>(options.dim, static_cast<int>(m));
  }
  Eigen::MatrixXd coef = model.eigenvectors.leftCols(model.dim);
  for (int j = 0; j < model.dim; ++j) {
    const double lambda = model.eigenvalues(j);
    if (options.scaling == TicaScaling::KineticMap) {
      coef.col(j) *= lambda;
    } else if (options.scaling == TicaScaling::CommuteMap) {
      // deeptime: t = 1 - tau / ln|lambda|, damped below the lag time (Noé et al. 2016, 2.5).
      const double tau = cov.lagtime;
      const double t = 1.0 - tau / std::log(std::abs(lambda));
      const double reg =
          0.5 * t * std::max(std::tanh(std::numbers::pi * ((t - tau) / tau) + 1.0), 0.0);
      coef.col(j) *= std::sqrt(reg / 2.0);
    }
  }
  model.projection.mean = cov.mean_removed ? cov.mean_0 : Eigen::VectorXd::Zero(cov.c00.rows());
  model.projection.coefficients = std::move(coef);
  return model;
}

TicaModel fit_tica(const RunningMoments& moments, const TicaOptions& options) {
  return fit_tica(moments.lagged(LaggedOptions{MeanRemoval::Separate, true}), options);
}

}  // namespace trails::analysis
