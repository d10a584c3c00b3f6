// Covariances of time-lagged pairs given as row indices (TrainingData::pairs), in the
// analysis::Covariances form that analysis/vamp.h and analysis/tica.h read. Two passes in
// double precision, normalised by the number of pairs (no Bessel correction).
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "trails/analysis/moments.h"

namespace trails::learned {

// rows: n × d row-major. symmetrize: the reversible estimate (deeptime TICA): one mean over
// both halves, C00 = Ctt = (XᵀX + YᵀY)/2n, C0t = (XᵀY + YᵀX)/2n. Otherwise each half about its
// own mean (deeptime VAMP).
analysis::Covariances pair_covariances(std::span<const double> rows, int d,
                                       std::span<const std::pair<std::int64_t, std::int64_t>> pairs,
                                       bool symmetrize);

// VAMP-2 of the CV rows on the pairs, deeptime's convention: Σσ² + 1 for the constant.
double pair_vamp2(std::span<const double> rows, int d,
                  std::span<const std::pair<std::int64_t, std::int64_t>> pairs);

}  // namespace trails::learned
