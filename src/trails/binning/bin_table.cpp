// BinTable: the bin -> chronological member list, kept incrementally per iteration block.
// Adding appends each frame to its bin; dropping the oldest block pops the same frames from the
// front of their bins (they are the oldest members there because blocks are chronological).
// Cost per block: O(frames) hash lookups plus O(log #bins) for each bin that appears/vanishes.
#include "trails/binning/bin_table.h"

#include <string>

#include "trails/core/error.h"

namespace trails::binning {

void BinTable::add_block(std::int64_t first_frame, std::span<const std::int64_t> bins) {
  // Validate before mutating so a failed call leaves the table unchanged.
  if (!blocks_.empty()) {
    const Block& last = blocks_.back();
    TRAILS_CHECK(first_frame >= last.first_frame + last.n_frames,
                 "BinTable::add_block: blocks must be added in chronological frame order");
  }
  TRAILS_CHECK(first_frame >= 0, "BinTable::add_block: negative first frame");
  for (std::int64_t b : bins) TRAILS_CHECK(b >= 0, "BinTable::add_block: negative bin id");

  ++call_;
  std::vector<std::int64_t> touched;
  Members* cached = nullptr;  // consecutive frames of a trajectory often share a bin
  std::int64_t cached_bin = -1;
  std::int64_t frame = first_frame;
  for (std::int64_t b : bins) {
    if (cached == nullptr || b != cached_bin) {
      auto [it, inserted] = bins_.try_emplace(b);
      if (inserted) order_.insert(b);
      cached = &it->second;  // unordered_map nodes never move, even on rehash
      cached_bin = b;
      if (cached->touched != call_) {
        cached->touched = call_;
        cached->population_before = cached->size();
        touched.push_back(b);
      }
    }
    cached->frames.push_back(frame++);
  }
  retier(touched);
  blocks_.push_back(Block{first_frame, static_cast<std::int64_t>(bins.size()),
                          droppable_ ? std::vector<std::int64_t>(bins.begin(), bins.end())
                                     : std::vector<std::int64_t>{}});
  n_frames_ += static_cast<std::int64_t>(bins.size());
}

void BinTable::drop_oldest_block() {
  TRAILS_CHECK(!blocks_.empty(), "BinTable::drop_oldest_block on an empty table");
  TRAILS_CHECK(droppable_, "BinTable::drop_oldest_block on a table built as not droppable");
  const Block& block = blocks_.front();
  ++call_;
  std::vector<std::int64_t> touched;
  std::int64_t frame = block.first_frame;
  for (std::int64_t b : block.bins) {
    auto it = bins_.find(b);
    TRAILS_CHECK(it != bins_.end(), "BinTable: dropped frame's bin is missing");
    Members& m = it->second;
    TRAILS_CHECK(!m.frames.empty() && m.frames.front() == frame,
                 "BinTable: dropped frame is not its bin's oldest");
    if (m.touched != call_) {
      m.touched = call_;
      m.population_before = m.size();
      touched.push_back(b);
    }
    m.frames.pop_front();  // an emptied entry stays until retier() moves it out of its tier
    ++frame;
  }
  n_frames_ -= static_cast<std::int64_t>(block.bins.size());
  blocks_.pop_front();
  retier(touched);
}

void BinTable::retier(const std::vector<std::int64_t>& touched_bins) {
  for (std::int64_t b : touched_bins) {
    auto it = bins_.find(b);
    const std::int64_t before = it->second.population_before;
    const std::int64_t now = it->second.size();
    if (before == now) continue;
    if (before > 0) {
      auto tier = tiers_.find(before);
      tier->second.erase(b);
      if (tier->second.empty()) tiers_.erase(tier);
    }
    if (now > 0) {
      tiers_[now].insert(b);
    } else {
      bins_.erase(it);
      order_.erase(b);
    }
  }
}

void BinTable::for_each_in_lowest_tiers(
    std::int64_t at_least,
    const std::function<void(std::int64_t bin, std::int64_t pop)>& fn) const {
  std::int64_t visited = 0;
  for (const auto& [pop, tier] : tiers_) {
    if (visited >= at_least) break;
    for (std::int64_t b : tier) fn(b, pop);
    visited += static_cast<std::int64_t>(tier.size());
  }
}

void BinTable::clear() {
  blocks_.clear();
  bins_.clear();
  order_.clear();
  tiers_.clear();
  n_frames_ = 0;
}

const BinTable::Members* BinTable::find(std::int64_t bin) const {
  auto it = bins_.find(bin);
  return it == bins_.end() ? nullptr : &it->second;
}

std::int64_t BinTable::population(std::int64_t bin) const {
  const Members* m = find(bin);
  return m == nullptr ? 0 : m->size();
}

std::int64_t BinTable::member(std::int64_t bin, std::int64_t k) const {
  const Members* m = find(bin);
  TRAILS_CHECK(m != nullptr, "BinTable::member: bin " + std::to_string(bin) + " is empty");
  TRAILS_CHECK(k >= 0 && k < m->size(), "BinTable::member: member index out of range");
  return m->frames[static_cast<std::size_t>(k)];
}

void BinTable::for_each_occupied(
    const std::function<void(std::int64_t bin, std::int64_t pop)>& fn) const {
  for (std::int64_t b : order_) fn(b, bins_.at(b).size());
}

}  // namespace trails::binning
