// Argument checks shared by the Markov-model numerics (docs/analysis.md).
#pragma once

#include <string>

#include <Eigen/Core>

#include "trails/core/error.h"

namespace trails::analysis {

// InputError naming `what` unless T is square with at least one row.
inline void require_square(const Eigen::Ref<const Eigen::MatrixXd>& T, const char* what) {
  if (T.rows() != T.cols() || T.rows() == 0)
    throw core::InputError(std::string(what) + ": expected a non-empty square matrix, got " +
                           std::to_string(T.rows()) + " x " + std::to_string(T.cols()));
}

}  // namespace trails::analysis
