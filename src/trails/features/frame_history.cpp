#include "trails/features/frame_history.h"

#include <algorithm>

#include "trails/core/error.h"

namespace trails::features {

std::int64_t FrameHistory::append(std::int64_t iteration, std::span<const WalkerSpan> walkers,
                                  std::span<const double> cvs) {
  Block block{iteration, frames(), {}, {walkers.begin(), walkers.end()}, {cvs.begin(), cvs.end()}};
  std::int64_t next = block.first;
  for (const auto& w : walkers) {
    block.walker_first.push_back(next);
    next += w.n_frames;
  }
  TRAILS_CHECK(static_cast<std::int64_t>(cvs.size()) == (next - block.first) * cv_dim_,
               "CV block size does not match the walkers' frame counts");
  TRAILS_CHECK(blocks_.empty() || blocks_.back().iteration < iteration,
               "iterations must be appended in order");
  n_frames_ = next;
  blocks_.push_back(std::move(block));
  return blocks_.back().first;
}

std::int64_t FrameHistory::block_frames(std::size_t block) const {
  const std::int64_t end = block + 1 < blocks_.size() ? blocks_[block + 1].first : frames();
  return end - blocks_[block].first;
}

const FrameHistory::Block& FrameHistory::block_of(std::int64_t global) const {
  TRAILS_CHECK(global >= 0 && global < frames(), "frame index out of range");
  auto it = std::upper_bound(blocks_.begin(), blocks_.end(), global,
                             [](std::int64_t g, const Block& b) { return g < b.first; });
  return *(it - 1);
}

std::span<const double> FrameHistory::point(std::int64_t global) const {
  const Block& block = block_of(global);
  return {block.cvs.data() + (global - block.first) * cv_dim_, static_cast<std::size_t>(cv_dim_)};
}

core::FrameKey FrameHistory::key_of(std::int64_t global) const {
  const Block& block = block_of(global);
  auto w = std::upper_bound(block.walker_first.begin(), block.walker_first.end(), global) - 1;
  const auto slot = static_cast<std::size_t>(w - block.walker_first.begin());
  return {block.iteration, block.walkers[slot].walker, global - *w};
}

}  // namespace trails::features
