// The moments one training-memory block of a learned space keeps (SpaceStage), in the algorithm
// the run records (docs/cvs.md, "Moments algorithm"):
//   running    RunningMoments: instantaneous and lagged sums (PCA; TICA in runs created before
//              the reversible algorithm, which keep resuming bitwise),
//   reversible ReversibleMoments, Eigen's blocked summation (TICA runs created before the row
//              order, which keep resuming bitwise),
//   reversible_rows  ReversibleMoments in centred_gram's fixed row order, the same bits on every
//              CPU (new TICA runs),
//   frames     only the frame count (neural spaces train on rows, not on moments).
// Both accumulators run on threads of core::default_pool() and give the same bits for any
// thread count. Throws core::InputError for a name it does not know (CorruptionError is the
// caller's) and core::InternalError when asked for moments its algorithm does not keep.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "trails/analysis/moments.h"
#include "trails/analysis/reversible_moments.h"

namespace trails::spaces {

enum class MomentsAlgorithm { Running, Reversible, ReversibleRows, Frames };

inline bool is_reversible(MomentsAlgorithm a) {
  return a == MomentsAlgorithm::Reversible || a == MomentsAlgorithm::ReversibleRows;
}

const char* moments_algorithm_name(MomentsAlgorithm a);
std::optional<MomentsAlgorithm> parse_moments_algorithm(const std::string& name);

class SpaceMoments {
 public:
  SpaceMoments(MomentsAlgorithm algorithm, int n_features, int lagtime);

  MomentsAlgorithm algorithm() const { return algorithm_; }
  int lagtime() const { return lag_; }
  std::int64_t n_frames() const { return frames_; }

  // Consecutive row blocks of `frames` are walker segments of the given lengths; at most
  // n_threads threads of core::default_pool() (0: all of them).
  void add_segments(const Eigen::Ref<const analysis::FrameMatrix>& frames,
                    std::span<const std::int64_t> segment_frames, int n_threads = 0);
  // Appends other's data after this one's (same algorithm, features and lag).
  void merge(const SpaceMoments& other);

  // TICA's input: mean-free, symmetrised lagged covariances (running: lagged({Separate, true})).
  analysis::Covariances reversible() const;
  // The RunningMoments (PCA's instantaneous and the non-symmetric lagged moments), or nullptr
  // for the other algorithms.
  const analysis::RunningMoments* running() const { return running_ ? &*running_ : nullptr; }

 private:
  MomentsAlgorithm algorithm_;
  int lag_;
  std::int64_t frames_ = 0;
  std::optional<analysis::RunningMoments> running_;
  std::optional<analysis::ReversibleMoments> reversible_;
};

}  // namespace trails::spaces
