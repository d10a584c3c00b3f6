// Private to the campaign module: the coverage element (docs/architecture.md, "Campaign
// elements"). Owns the bin tables (CoverageTracker: coverage and the spawner's pool) and the
// resolution ladder; after each spawn it records coverage in the iteration's record and lets
// the ladder refine the grid or the spawner's cells. State key "resolution" (the ladder); the
// tables are rebuilt from the frame history on resume.
#pragma once

#include <optional>
#include <vector>

#include "trails/binning/resolution.h"
#include "trails/binning/uniform_grid.h"
#include "trails/campaign/campaign_element.h"
#include "trails/campaign/coverage_tracker.h"
#include "trails/features/frame_history.h"
#include "trails/spawners/spawner.h"

namespace trails::campaign {

class CoverageElement final : public IterationElement, public CheckpointClient {
 public:
  static constexpr StateKey kKey{"resolution", 1};

  // `spawner` is the spawn element's: a refinement resets its memory or sets its cells.
  CoverageElement(binning::ResolutionController resolution, std::vector<double> min_values,
                  std::vector<double> max_values, std::optional<int> history_window,
                  const features::FrameHistory& history, spawners::Spawner& spawner);

  std::string_view name() const override { return "coverage"; }
  void run(IterationState& it) override;

  std::vector<StateKey> state_keys() const override { return {kKey}; }
  nlohmann::json state() const override;
  void restore(const nlohmann::json& state) override;

  // Empty tables on the uniform grid of the ladder's current bins (fixed CV spaces).
  void start_uniform_grid();
  // Empty tables on `grid` (a learned space's box from its data bounds).
  void start_grid(binning::UniformGrid grid);
  bool has_grid() const { return tracker_.has_value(); }
  // Bins the history's newest block.
  void add_latest() { tracker_->add_latest(history_); }
  const CoverageTracker& tracker() const { return *tracker_; }
  // Occupied fraction of the coverage grid; 0 before there is one.
  double explored_fraction() const;
  const binning::ResolutionController& resolution() const { return resolution_; }

 private:
  binning::ResolutionController resolution_;
  std::vector<double> min_values_, max_values_;
  std::optional<int> history_window_;
  const features::FrameHistory& history_;
  spawners::Spawner& spawner_;
  std::optional<CoverageTracker> tracker_;
};

}  // namespace trails::campaign
