// VAMP-r score of a discrete MSM (Wu & Noé 2020; deeptime MarkovStateModel.score on its
// training data): singular values of K = C00^{-1/2} C0t Ctt^{-1/2} with C0t the active count
// matrix, C00 = diag(row sums), Ctt = diag(column sums). The score includes the trivial singular
// value 1, so VAMP-2 >= 1 (unlike the mean-free feature-space score of Trails-MD §3.14).
// Pure numerics; O(n^3) (Eigen BDCSVD). Throws core::InputError for bad arguments.
#pragma once

#include <Eigen/Core>

namespace trails::analysis {

// sum_{i < dim} sigma_i^r; dim = -1: all singular values. r >= 1. States with no outgoing or
// no incoming counts are dropped (their rows/columns of K are zero).
double msm_vamp_score(const Eigen::Ref<const Eigen::MatrixXd>& C, double r = 2.0, int dim = -1);

}  // namespace trails::analysis
