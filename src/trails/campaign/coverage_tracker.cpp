#include "trails/campaign/coverage_tracker.h"

namespace trails::campaign {

CoverageTracker::CoverageTracker(binning::UniformGrid grid, std::optional<int> history_window)
    : grid_(std::move(grid)), window_(history_window), coverage_(/*droppable=*/false) {}

std::vector<std::int64_t> CoverageTracker::bins_of_block(const features::FrameHistory& history,
                                                         std::size_t block) const {
  const auto points = history.block_points(block);
  const auto d = static_cast<std::size_t>(history.cv_dim());
  std::vector<std::int64_t> bins(points.size() / d);
  for (std::size_t f = 0; f < bins.size(); ++f) bins[f] = grid_.bin_of(points.subspan(f * d, d));
  return bins;
}

void CoverageTracker::add_block(const features::FrameHistory& history, std::size_t block) {
  const auto bins = bins_of_block(history, block);
  const std::int64_t first = history.block_first(block);
  coverage_.add_block(first, bins);
  if (!window_) {
    pool_first_ = 0;
    return;
  }
  window_table_.add_block(first, bins);
  // The pool holds the current iteration plus the `window` iterations before it.
  while (window_table_.n_blocks() > static_cast<std::size_t>(*window_) + 1) {
    window_table_.drop_oldest_block();
  }
  const std::size_t pooled = window_table_.n_blocks();
  pool_first_ = history.block_first(block + 1 - pooled);
}

void CoverageTracker::add_latest(const features::FrameHistory& history) {
  add_block(history, history.iterations() - 1);
}

void CoverageTracker::regrid(const std::vector<int>& n_bins,
                             const features::FrameHistory& history) {
  grid_ = binning::UniformGrid(n_bins, grid_.min_values(), grid_.max_values());
  coverage_.clear();
  window_table_.clear();
  for (std::size_t b = 0; b < history.iterations(); ++b) add_block(history, b);
}

}  // namespace trails::campaign
