// Every frame's CV point of a campaign, in global order (iterations ascending, ok walkers in walker
// order, frames in time order), plus the block layout that maps a global frame index to its
// FrameKey. Appending an iteration costs O(its frames); lookups cost O(log iterations + log
// walkers).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "trails/core/frame_key.h"

namespace trails::features {

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
  std::int64_t frames() const { return n_frames_; }
  std::size_t iterations() const { return blocks_.size(); }
  std::span<const double> point(std::int64_t global) const;
  // All points of the i-th stored iteration block (frames × cv_dim).
  std::span<const double> block_points(std::size_t block) const { return blocks_[block].cvs; }
  core::FrameKey key_of(std::int64_t global) const;
  // Global index of the first frame of the i-th stored iteration block and its frame count.
  std::int64_t block_first(std::size_t block) const { return blocks_[block].first; }
  std::int64_t block_frames(std::size_t block) const;
  // The ok walkers of the i-th stored iteration block, in walker order (their frames follow each
  // other from block_first(i)).
  std::span<const WalkerSpan> block_walkers(std::size_t block) const {
    return blocks_[block].walkers;
  }

 private:
  struct Block {
    std::int64_t iteration;
    std::int64_t first;
    std::vector<std::int64_t> walker_first;  // global index of each walker's first frame
    std::vector<WalkerSpan> walkers;
    std::vector<double> cvs;  // one allocation per iteration: no doubling of a giant array
  };
  const Block& block_of(std::int64_t global) const;
  int cv_dim_;
  std::int64_t n_frames_ = 0;
  std::vector<Block> blocks_;
};

}  // namespace trails::features
