// Every frame's CV point of a campaign, in global order (iterations ascending, ok walkers in walker
// order, frames in time order), plus the block layout that maps a global frame index to its
// FrameKey. Appending an iteration costs O(its frames); lookups cost O(log iterations + log walkers).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "trails/core/frame_key.h"

namespace trails::campaign {

class FrameHistory {
 public:
  explicit FrameHistory(int cv_dim) : cv_dim_(cv_dim) {}

  struct WalkerSpan {
    std::int64_t walker;
    std::int64_t n_frames;
  };

  // Appends one iteration's frames (cvs: Σ n_frames × cv_dim, walker-major). Returns the global
  // index of its first frame.
  std::int64_t append(std::int64_t iteration, std::span<const WalkerSpan> walkers,
                      std::span<const double> cvs);

  int cv_dim() const { return cv_dim_; }
  std::int64_t frames() const { return static_cast<std::int64_t>(cvs_.size()) / cv_dim_; }
  std::size_t iterations() const { return blocks_.size(); }
  std::span<const double> point(std::int64_t global) const {
    return {cvs_.data() + global * cv_dim_, static_cast<std::size_t>(cv_dim_)};
  }
  std::span<const double> all_points() const { return cvs_; }
  core::FrameKey key_of(std::int64_t global) const;
  // Global index of the first frame of the i-th stored iteration block and its frame count.
  std::int64_t block_first(std::size_t block) const { return blocks_[block].first; }
  std::int64_t block_frames(std::size_t block) const;

 private:
  struct Block {
    std::int64_t iteration;
    std::int64_t first;
    std::vector<std::int64_t> walker_first;  // global index of each walker's first frame
    std::vector<WalkerSpan> walkers;
  };
  int cv_dim_;
  std::vector<double> cvs_;
  std::vector<Block> blocks_;
};

}  // namespace trails::campaign
