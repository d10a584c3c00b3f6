// VAMP (Wu & Noé 2020): regularised whitening, the Koopman singular value decomposition of
// C00^{-1/2} C0t Ctt^{-1/2}, VAMP-2 scores of feature sets, and the VAMP-2 score of an MSM.
// Pure numerics: inputs read-only, results are values. Cost: O(d^3) per decomposition.
// Throws core::InputError for mismatched sizes; a rank-zero feature set scores 0 (+1), not an
// error.
#pragma once

#include <Eigen/Core>
#include <span>

#include "trails/analysis/moments.h"

namespace trails::analysis {

enum class EpsilonRule {
  Absolute,           // keep eigenvalues s with |s| >= eps, eps raised above -min(s) (deeptime)
  RelativeToLargest,  // keep s > eps * max(s_max, 1e-12) (Trails-MD feature selection, 3.14)
};

// Rank-reduced inverse square root of a symmetric positive semi-definite C (symmetrised first):
// L = V_m diag(s_m)^{-1/2} over the kept eigenpairs, so L^T C L = I_m and L L^T = C^+.
// Eigenpairs sorted by |s| descending; each column of V has its largest-|.| entry positive.
struct InverseSqrt {
  Eigen::MatrixXd L;            // d x m
  Eigen::VectorXd eigenvalues;  // the m kept eigenvalues
  int rank() const { return static_cast<int>(L.cols()); }
};
InverseSqrt spd_inverse_sqrt(const Eigen::Ref<const Eigen::MatrixXd>& C, double epsilon,
                             EpsilonRule rule = EpsilonRule::Absolute);

struct VampOptions {
  double epsilon = 1e-6;
  EpsilonRule epsilon_rule = EpsilonRule::Absolute;
};

// K = L0^T C0t Lt = U diag(sigma) V^T; left = L0 U and right = Lt V map mean-free x_t and
// x_{t+tau} onto the singular functions. Singular values descending; rank-zero sides give k = 0.
struct VampDecomposition {
  Eigen::VectorXd singular_values;  // k = min(rank_0, rank_t)
  Eigen::MatrixXd left, right;      // d x k
  int rank_0 = 0, rank_t = 0;
};
VampDecomposition vamp_decomposition(const Covariances& cov, const VampOptions& options = {});

struct Vamp2Options {
  double epsilon = 1e-6;
  EpsilonRule epsilon_rule = EpsilonRule::Absolute;
  int dim = -1;                  // score only the dim largest singular values; -1: all
  bool include_constant = true;  // +1 for the constant singular function when the mean was
                                 // removed (deeptime's score(r=2) convention)
  bool clip_to_unit = false;     // clip singular values to [0, 1] before squaring
  // Trails-MD's feature-selection score (3.14): relative eps 1e-6, no constant term, clipped.
  // Use with covariances from LaggedOptions{MeanRemoval::Shared, symmetrize = false}.
  static Vamp2Options trails_md_feature_selection();
};

// Sum of squared singular values of C00^{-1/2} C0t Ctt^{-1/2} (first dim), plus 1 when
// include_constant and cov.mean_removed. Requires lagged covariances (cov.lagtime >= 1).
double vamp2_score(const Covariances& cov, const Vamp2Options& options = {});

// The same score on a column subset (submatrices of c00, c0t, ctt), for feature selection.
double vamp2_score(const Covariances& cov, std::span<const int> columns,
                   const Vamp2Options& options = {});

// VAMP-2 of an MSM, deeptime/PyEMMA count-based formula: with C00 = diag(row sums of C_train),
// Ctt = diag(column sums), the SVD of C00^{1/2} T Ctt^{-1/2} = U S V^T gives singular functions
// U' = C00^{-1/2} U, V' = Ctt^{-1/2} V (first k, k = -1: all); with the test counts,
// score = || (U'^T C00' U')^{-1/2} (U'^T C' V') (V'^T Ctt' V')^{-1/2} ||_F^2 (pseudo-inverse
// square roots cut at 1e-10). No mean is removed, so the constant function is included (>= 1).
// In-sample with k = all this is sum_ij C_ij^2 / (r_i c_j) and does not depend on T.
double msm_vamp2_score(const Eigen::Ref<const Eigen::MatrixXd>& T,
                       const Eigen::Ref<const Eigen::MatrixXd>& counts_train,
                       const Eigen::Ref<const Eigen::MatrixXd>& counts_test, int k = -1);

// The population VAMP-2 of a transition matrix in its stationary distribution pi (all > 0):
// || Pi^{1/2} T Pi^{-1/2} ||_F^2 = sum_ij pi_i T_ij^2 / pi_j; for reversible T, sum_i lambda_i^2.
double msm_vamp2_score_stationary(const Eigen::Ref<const Eigen::MatrixXd>& T,
                                  const Eigen::Ref<const Eigen::VectorXd>& pi);

}  // namespace trails::analysis
