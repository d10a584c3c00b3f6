#include "trails/campaign/msm_element.h"

#include "trails/binning/uniform_grid.h"

namespace trails::campaign {

MsmElement::MsmElement(std::unique_ptr<msm::MsmStage> stage, const features::FrameHistory& history,
                       BuildRecorder record)
    : stage_(std::move(stage)), history_(history), record_(std::move(record)) {}

void MsmElement::run(IterationState& it) {
  stage_->start(it.iteration, history_,
                binning::occupied_fraction(it.rec.occupied_bins, it.rec.total_bins));
}

nlohmann::json MsmElement::state() const {
  if (!stage_->enabled()) return nlohmann::json::object();
  return {{kKey.key, stage_->state()}};
}

void MsmElement::restore(const nlohmann::json& state) {
  if (state.contains(kKey.key)) stage_->restore(state.at(kKey.key), history_);
}

std::optional<msm::MsmBuild> MsmElement::join(double* wait_s) {
  auto built = stage_->join(wait_s);
  if (built) record_(*built);
  return built;
}

void MsmElement::follow_space(IterationState& it, std::int64_t space_version, double explored) {
  stage_->set_space_version(space_version);
  if (stage_->stale()) {
    const auto t_rebuild = IterationState::Clock::now();
    record_(stage_->rebuild_now(it.iteration, history_, explored));
    it.msm_wait_s += seconds_since(t_rebuild);
  }
}

}  // namespace trails::campaign
