// PCA from accumulated instantaneous moments, with scikit-learn's conventions: explained
// variance normalised by n - 1, components signed so each one's largest-|.| entry is positive,
// a variance fraction picks the smallest dim whose cumulative ratio exceeds it.
// Pure numerics. Cost O(d^3). Throws core::InputError (fewer than 2 frames, bad options).
#pragma once

#include <Eigen/Core>

#include "trails/analysis/linear_projection.h"
#include "trails/analysis/moments.h"

namespace trails::analysis {

struct PcaOptions {
  int dim = -1;            // number of components; -1: all (or var_cutoff)
  double var_cutoff = -1;  // in (0, 1): smallest dim with cumulative ratio > var_cutoff;
                           // takes precedence over dim
};

struct PcaModel {
  double n_samples = 0;
  Eigen::VectorXd explained_variance;        // all d, descending, sum (x-mean)^2 / (n-1)
  Eigen::VectorXd explained_variance_ratio;  // explained_variance / its sum
  Eigen::MatrixXd components;                // d x d, column i = principal axis i
  int dim = 0;
  LinearProjection projection;  // mean and the first `dim` components

  FrameMatrix transform(const Eigen::Ref<const FrameMatrix>& frames) const {
    return projection.transform(frames);
  }
};

// From mean-free instantaneous covariances (normalised by n, as RunningMoments gives them).
PcaModel fit_pca(const Covariances& cov, const PcaOptions& options = {});
PcaModel fit_pca(const RunningMoments& moments, const PcaOptions& options = {});

}  // namespace trails::analysis
