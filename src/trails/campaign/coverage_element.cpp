#include "trails/campaign/coverage_element.h"

namespace trails::campaign {

CoverageElement::CoverageElement(binning::ResolutionController resolution,
                                 std::vector<double> min_values, std::vector<double> max_values,
                                 std::optional<int> history_window,
                                 const features::FrameHistory& history, spawners::Spawner& spawner)
    : resolution_(std::move(resolution)),
      min_values_(std::move(min_values)),
      max_values_(std::move(max_values)),
      history_window_(history_window),
      history_(history),
      spawner_(spawner) {}

void CoverageElement::run(IterationState& it) {
  // Coverage on the grid the spawner used, then the resolution ladder (which may refine it, or
  // the spawner's own cells).
  auto& rec = it.rec;
  rec.cumulative_frames = tracker_->coverage().frames();
  rec.occupied_bins = tracker_->coverage().occupied();
  rec.total_bins = tracker_->grid().total_bins();
  rec.n_bins = tracker_->grid().n_bins();
  const auto update = resolution_.observe(rec.occupied_bins);
  if (update.bumped) {
    tracker_->regrid(resolution_.n_bins(), history_);
    spawner_.reset_memory();
  }
  if (update.cells_bumped) spawner_.set_cells(*resolution_.cells());
}

nlohmann::json CoverageElement::state() const { return {{kKey.key, resolution_.state()}}; }

void CoverageElement::restore(const nlohmann::json& state) {
  resolution_.restore(state.at(kKey.key));
}

void CoverageElement::start_uniform_grid() {
  start_grid(binning::UniformGrid(resolution_.n_bins(), min_values_, max_values_));
}

void CoverageElement::start_grid(binning::UniformGrid grid) {
  tracker_.emplace(std::move(grid), history_window_);
}

double CoverageElement::explored_fraction() const {
  return tracker_ ? binning::occupied_fraction(tracker_->coverage().occupied(),
                                               tracker_->grid().total_bins())
                  : 0.0;
}

}  // namespace trails::campaign
