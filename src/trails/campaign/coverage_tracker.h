// Incremental bin bookkeeping of a campaign: the coverage table (every frame ever sampled, the
// compat:coverage-diagnostic) and the spawner's candidate pool (the last
// `history_window` iterations plus the current one; the same table when there is no window).
// Adding an iteration costs O(its frames); only a grid refinement re-bins history (≤ 13 times).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "trails/binning/bin_table.h"
#include "trails/binning/uniform_grid.h"
#include "trails/features/frame_history.h"

namespace trails::campaign {

class CoverageTracker {
 public:
  CoverageTracker(binning::UniformGrid grid, std::optional<int> history_window);

  // Bins the newest block of `history` into both tables and slides the window.
  void add_latest(const features::FrameHistory& history);
  // Switches to a refined grid and re-bins every stored frame.
  void regrid(const std::vector<int>& n_bins, const features::FrameHistory& history);

  const binning::UniformGrid& grid() const { return grid_; }
  const binning::BinTable& coverage() const { return coverage_; }
  const binning::BinTable& pool() const { return window_ ? window_table_ : coverage_; }
  // Global index of the pool's first frame (pool index = global index − this).
  std::int64_t pool_first_frame() const { return pool_first_; }

 private:
  std::vector<std::int64_t> bins_of_block(const features::FrameHistory& history,
                                          std::size_t block) const;
  void add_block(const features::FrameHistory& history, std::size_t block);

  binning::UniformGrid grid_;
  std::optional<int> window_;
  binning::BinTable coverage_;
  binning::BinTable window_table_;
  std::int64_t pool_first_ = 0;
};

}  // namespace trails::campaign
