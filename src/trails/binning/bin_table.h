// Incremental bin populations and member frames over a sliding window of iteration blocks.
// Frames are identified by global indices (frames of all iterations numbered in order). Adding
// an iteration's block costs O(frames in it); dropping the oldest block costs O(its frames);
// nothing ever rescans history. Members of a bin are kept in chronological order.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <unordered_map>
#include <vector>

namespace trails::binning {

class BinTable {
 public:
  // A table that never drops blocks (the coverage table) need not remember each frame's bin,
  // which halves its memory; drop_oldest_block() then throws.
  explicit BinTable(bool droppable = true) : droppable_(droppable) {}

  // Appends one block: frames first_frame, first_frame+1, ... fall in bins[0], bins[1], ...
  // Blocks must be chronological (first_frame >= end of the previous block); bin ids >= 0.
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
  // Occupied bins by ascending population (ascending bin id within a population), whole
  // population tiers only, stopping after the tier in which `at_least` bins were reached.
  // Costs O(bins visited), independent of how many bins are occupied: hard spawning uses it.
  void for_each_in_lowest_tiers(
      std::int64_t at_least,
      const std::function<void(std::int64_t bin, std::int64_t pop)>& fn) const;

 private:
  // A bin's members in chronological order. Dropping the oldest block removes a prefix of every
  // touched bin. A deque grows in fixed chunks: appending never copies the members already
  // there, so the cost of adding a block stays flat as a bin fills up over a long campaign (a
  // flat vector re-copied and re-faulted its whole history on every growth: docs/performance.md).
  struct Members {
    std::deque<std::int64_t> frames;
    std::uint64_t touched = 0;           // last add/drop call that changed this bin
    std::int64_t population_before = 0;  // its population before that call
    std::int64_t size() const { return static_cast<std::int64_t>(frames.size()); }
  };
  struct Block {
    std::int64_t first_frame;
    std::int64_t n_frames;
    std::vector<std::int64_t> bins;  // empty unless droppable_
  };
  const Members* find(std::int64_t bin) const;

  std::deque<Block> blocks_;
  std::unordered_map<std::int64_t, Members> bins_;  // O(1) per-frame lookup; only occupied bins
  std::set<std::int64_t> order_;  // occupied ids, ascending; touched only when a bin (dis)appears
  std::map<std::int64_t, std::set<std::int64_t>> tiers_;  // population -> bins, kept per call
  std::uint64_t call_ = 0;
  bool droppable_ = true;
  std::int64_t n_frames_ = 0;
  void retier(const std::vector<std::int64_t>& touched_bins);
};

}  // namespace trails::binning
