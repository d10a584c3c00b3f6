// VAMP-r score of a discrete MSM from its count matrix.
#include "trails/analysis/vamp.h"

#include <cmath>
#include <string>

#include <Eigen/SVD>

#include "trails/core/error.h"

namespace trails::analysis {

double msm_vamp_score(const Eigen::Ref<const Eigen::MatrixXd>& C, double r, int dim) {
  if (C.rows() != C.cols() || C.rows() == 0)
    throw core::InputError("msm_vamp_score: expected a non-empty square count matrix, got " +
                           std::to_string(C.rows()) + " x " + std::to_string(C.cols()));
  if (!(r >= 1.0) || dim == 0 || dim < -1)
    throw core::InputError("msm_vamp_score: expected r >= 1 and dim >= 1 (or -1), got r = " +
                           std::to_string(r) + ", dim = " + std::to_string(dim));
  if (!(C.minCoeff() >= 0.0)) throw core::InputError("msm_vamp_score: expected counts >= 0");
  const Eigen::VectorXd row = C.rowwise().sum(), col = C.colwise().sum().transpose();
  auto inv_sqrt = [](const Eigen::VectorXd& v) {
    Eigen::VectorXd w(v.size());
    for (Eigen::Index i = 0; i < v.size(); ++i) w(i) = v(i) > 0.0 ? 1.0 / std::sqrt(v(i)) : 0.0;
    return w;
  };
  const Eigen::MatrixXd K = inv_sqrt(row).asDiagonal() * C * inv_sqrt(col).asDiagonal();
  const Eigen::VectorXd sigma = Eigen::BDCSVD<Eigen::MatrixXd>(K).singularValues();
  const Eigen::Index k = dim < 0 ? sigma.size() : std::min<Eigen::Index>(dim, sigma.size());
  double score = 0.0;
  for (Eigen::Index i = 0; i < k; ++i) score += std::pow(std::min(sigma(i), 1.0), r);
  return score;
}

}  // namespace trails::analysis
