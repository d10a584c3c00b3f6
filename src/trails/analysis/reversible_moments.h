// The reversible (symmetrised) instantaneous and time-lagged moments that deeptime's TICA uses,
// at half the flops of RunningMoments (docs/analysis.md, "Reversible moments, fast path"):
//   m   = mean over Z, the 2w samples {x_t} u {y_t} of the w pairs (x_t, y_t = x_{t+lag}),
//   C00 = sum_Z (z - m)(z - m)^T / 2w,    C0t = sum_t [(x_t - m)(y_t - m)^T + (y_t - m)(x_t - m)^T]
//   / 2w,
// which is RunningMoments::lagged({Separate, symmetrize = true}) in exact arithmetic. Per segment
// it forms two symmetric rank updates per block of rows (one of the frames about a reference
// a, one of x_t + y_t - 2a) instead of three products, using
//   sum_t [x y^T + y x^T] = sum_t (x + y)(x + y)^T - sum_t x x^T - sum_t y y^T.
// The rounding differs from RunningMoments (about 1e-15 relative to |C00|), so a campaign's TICA
// space records which of the two it uses (docs/cvs.md, "Moments algorithm").
// Determinism: fixed row blocks (kBlockRows) folded in block order, segments merged in order:
// bitwise the same for every thread count. Within a block the products are summed either in
// Eigen's cache-blocked order (Summation::Blocked, the "reversible" runs) or in centred_gram's
// fixed row order (Summation::Rows, AVX2 where the CPU has it, the same bits on every CPU). Pure
// numerics. Throws core::InputError for size mismatches and, in covariances(), when there are no
// pairs.
#pragma once

#include <cstdint>
#include <span>

#include <Eigen/Core>

#include "trails/analysis/moments.h"
#include "trails/core/thread_pool.h"

namespace trails::analysis {

class ReversibleMoments {
 public:
  enum class Summation { Blocked, Rows };
  // n_features >= 1, lagtime >= 1.
  ReversibleMoments(int n_features, int lagtime, Summation summation = Summation::Rows);

  int n_features() const { return d_; }
  int lagtime() const { return lag_; }
  Summation summation() const { return summation_; }
  std::int64_t n_pairs() const { return w_; }

  // Consecutive row blocks of `frames` are segments of the given lengths (summing to
  // frames.rows()); pairs never cross segments, segments of <= lagtime frames add nothing.
  // Blocks of all segments run on at most n_threads threads of `pool` (0: all of them;
  // nullptr: core::default_pool()).
  void add_segments(const Eigen::Ref<const FrameMatrix>& frames,
                    std::span<const std::int64_t> segment_frames, int n_threads = 1,
                    core::ThreadPool* pool = nullptr);
  // Appends other's pairs (same features, lag and summation) after this one's by Chan's update on
  // the 2w samples (into an empty accumulator: an exact copy). Deterministic for a fixed merge
  // order.
  void merge(const ReversibleMoments& other);

  // Symmetrised, mean-free covariances (symmetrized = mean_removed = true, ctt = c00), the
  // input of fit_tica. Throws if no pairs were added.
  Covariances covariances() const;

  static constexpr std::int64_t kBlockRows = 4096;

 private:
  void merge(std::int64_t w, const Eigen::VectorXd& mean, const Eigen::MatrixXd& s2,
             const Eigen::MatrixXd& q);

  int d_;
  int lag_;
  Summation summation_;
  std::int64_t w_ = 0;    // pairs
  Eigen::VectorXd mean_;  // over the 2w samples
  Eigen::MatrixXd s2_;    // sum_Z (z - mean)(z - mean)^T
  Eigen::MatrixXd q_;     // sum_t [(x - mean)(y - mean)^T + transpose]
};

}  // namespace trails::analysis
