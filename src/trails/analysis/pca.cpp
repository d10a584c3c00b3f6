// PCA: symmetric eigen-decomposition of the mean-free covariance.
#include "trails/analysis/pca.h"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <string>

#include "trails/core/error.h"

namespace trails::analysis {

PcaModel fit_pca(const Covariances& cov, const PcaOptions& options) {
  const Eigen::Index d = cov.c00.rows();
  if (d == 0 || cov.c00.cols() != d)
    throw core::InputError("fit_pca: expected a non-empty square covariance matrix");
  if (!cov.mean_removed)
    throw core::InputError("fit_pca: expected mean-free covariances (remove_mean = true)");
  if (cov.n_samples < 2)
    throw core::InputError("fit_pca: expected at least 2 frames, got " +
                           std::to_string(cov.n_samples));
  if (options.var_cutoff != -1 && !(options.var_cutoff > 0 && options.var_cutoff < 1))
    throw core::InputError("fit_pca: expected var_cutoff in (0, 1), got " +
                           std::to_string(options.var_cutoff));
  if (options.dim == 0 || options.dim < -1)
    throw core::InputError("fit_pca: expected dim >= 1 or -1 (all), got " +
                           std::to_string(options.dim));
  const Eigen::MatrixXd S = 0.5 * (cov.c00 + cov.c00.transpose());
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(S);
  if (es.info() != Eigen::Success)
    throw core::InputError("fit_pca: eigen-decomposition did not converge");
  PcaModel model;
  model.n_samples = cov.n_samples;
  const double bessel = cov.n_samples / (cov.n_samples - 1.0);
  model.explained_variance.resize(d);
  model.components.resize(d, d);
  for (Eigen::Index j = 0; j < d; ++j) {  // solver order is ascending
    const Eigen::Index src = d - 1 - j;
    model.explained_variance(j) = std::max(es.eigenvalues()(src), 0.0) * bessel;
    Eigen::VectorXd v = es.eigenvectors().col(src);
    Eigen::Index imax = 0;
    v.cwiseAbs().maxCoeff(&imax);
    if (v(imax) < 0) v = -v;
    model.components.col(j) = v;
  }
  const double total = model.explained_variance.sum();
  model.explained_variance_ratio =
      total > 0 ? Eigen::VectorXd(model.explained_variance / total) : Eigen::VectorXd::Zero(d);
  if (options.var_cutoff > 0) {
    double acc = 0;
    int k = 0;  // entries with cumulative ratio <= cutoff (searchsorted right), then + 1
    while (k < d && (acc + model.explained_variance_ratio(k)) <= options.var_cutoff)
      acc += model.explained_variance_ratio(k++);
    model.dim = std::min<int>(k + 1, static_cast<int>(d));
  } else {
    model.dim =
        options.dim == -1 ? static_cast<int>(d) : std::min<int>(options.dim, static_cast<int>(d));
  }
  model.projection.mean = cov.mean_0;
  model.projection.coefficients = model.components.leftCols(model.dim);
  return model;
}

PcaModel fit_pca(const RunningMoments& moments, const PcaOptions& options) {
  return fit_pca(moments.instantaneous(true), options);
}

}  // namespace trails::analysis
