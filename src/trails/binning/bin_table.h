// Incremental bin populations and member frames over a sliding window of iteration blocks.
// Frames are identified by global indices (frames of all iterations numbered in order). Adding
// an iteration's block costs O(frames in it); dropping the oldest block costs O(its frames);
// nothing ever rescans history. Members of a bin are kept in chronological order.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <span>
#include <vector>

namespace trails::binning {

class BinTable {
 public:
  // Appends one block: frames first_frame, first_frame+1, ... fall in bins[0], bins[1], ...
  void add_block(std::int64_t first_frame, std::span<const std::int64_t> bins);
  void drop_oldest_block();
  void clear();

  std::size_t n_blocks() const { return blocks_.size(); }
  std::int64_t frames() const { return n_frames_; }
  std::int64_t occupied() const { return static_cast<std::int64_t>(bins_.size()); }
  std::int64_t population(std::int64_t bin) const;
  // k-th member (0 = oldest) of a bin, as a global frame index.
  std::int64_t member(std::int64_t bin, std::int64_t k) const;
  // Occupied bins in ascending bin id with their populations.
  void for_each_occupied(const std::function<void(std::int64_t bin, std::int64_t pop)>& fn) const;

 private:
  struct Block {
    std::int64_t first_frame;
    std::vector<std::int64_t> bins;
  };
  std::deque<Block> blocks_;
  std::map<std::int64_t, std::deque<std::int64_t>> bins_;  // bin id -> member frames
  std::int64_t n_frames_ = 0;
};

}  // namespace trails::binning
