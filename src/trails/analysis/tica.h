// TICA (Pérez-Hernández et al. 2013) from accumulated moments, following deeptime's TICA:
// mean-free symmetrised (reversible) C00 and C0t without Bessel correction, C00 whitened by its
// eigen-decomposition with eigenvalues below epsilon dropped, then C0t r = lambda C00 r solved
// as a symmetric problem; kinetic-map (Noé & Clementi 2015) or commute-map scaling.
// Pure numerics. Cost O(d^3). Throws core::InputError (no pairs, all features constant, ...).
#pragma once

#include <Eigen/Core>

#include "trails/analysis/linear_projection.h"
#include "trails/analysis/moments.h"

namespace trails::analysis {

enum class TicaScaling {
  None,        // projections have unit variance
  KineticMap,  // component i scaled by lambda_i: Euclidean distance ~ kinetic distance
  CommuteMap,  // scaled by sqrt(t_i / 2), deeptime's regularised t_i (docs/analysis.md)
};

struct TicaOptions {
  double epsilon = 1e-6;   // absolute eigenvalue cut for C00 (deeptime)
  int dim = -1;            // output dimension; -1: all (or var_cutoff)
  double var_cutoff = -1;  // in (0, 1]: smallest dim whose cumulative kinetic variance
                           // sum lambda^2 / total reaches it; takes precedence over dim
  TicaScaling scaling = TicaScaling::KineticMap;
};

struct TicaModel {
  int lagtime = 0;               // frames
  Eigen::VectorXd eigenvalues;   // all `rank` eigenvalues, by |lambda| descending
  Eigen::MatrixXd eigenvectors;  // d x rank, unscaled: R^T C00 R = I; largest-|.| entry > 0
  int rank = 0;                  // rank of C00 after the epsilon cut
  int dim = 0;                   // output dimension
  LinearProjection projection;   // mean and the scaled first `dim` eigenvectors

  FrameMatrix transform(const Eigen::Ref<const FrameMatrix>& frames) const {
    return projection.transform(frames);
  }
  // -lagtime / ln|lambda_i| for all rank components (frames); |lambda| >= 1 gives +inf.
  Eigen::VectorXd timescales() const;
  // cumsum(lambda^2) / sum(lambda^2) over all rank components.
  Eigen::VectorXd cumulative_kinetic_variance() const;
};

// From symmetrised lagged covariances (cov.symmetrized must be true; mean_0 is the centre).
TicaModel fit_tica(const Covariances& cov, const TicaOptions& options = {});
// From running moments: lagged({MeanRemoval::Separate, symmetrize = true}) (deeptime's TICA).
TicaModel fit_tica(const RunningMoments& moments, const TicaOptions& options = {});

}  // namespace trails::analysis
