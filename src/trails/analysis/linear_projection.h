// A fitted linear map of frames into a low-dimensional space: y = (x - mean) W. PCA and TICA
// models expose one, and it is what a campaign checkpoints and re-projects history with.
// Pure numerics; transform is O(n d k) by one matrix product. Throws core::InputError.
#pragma once

#include <Eigen/Core>
#include <span>
#include <vector>

#include "trails/analysis/moments.h"

namespace trails::analysis {

struct LinearProjection {
  Eigen::VectorXd mean;          // d
  Eigen::MatrixXd coefficients;  // d x k, one output coordinate per column

  int input_dim() const { return static_cast<int>(coefficients.rows()); }
  int output_dim() const { return static_cast<int>(coefficients.cols()); }

  // frames (n x d) -> n x k. Throws if frames.cols() != d.
  FrameMatrix transform(const Eigen::Ref<const FrameMatrix>& frames) const;

  // Flat, versioned state: [version, d, k, mean (d), coefficients (column-major d*k)].
  std::vector<double> to_flat() const;
  static LinearProjection from_flat(std::span<const double> flat);
};

}  // namespace trails::analysis
