// Private to the campaign module: the MSM element (docs/architecture.md, "Campaign elements").
// Owns the in-loop MsmStage (msm/msm_stage.h; inert unless msm.enabled). Its step starts the
// next build on a background thread after coverage; the other steps call join() (after the
// MD), observe() (new walker segments) and follow_space() (a retired learned space). Every
// joined build goes to `record` (the ledger's msm_builds). State key "msm", restored once the
// frame history holds every committed frame again (its labels are of those frames).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "trails/campaign/campaign_element.h"
#include "trails/features/frame_history.h"
#include "trails/msm/msm_stage.h"

namespace trails::campaign {

class MsmElement final : public IterationElement, public CheckpointClient {
 public:
  static constexpr StateKey kKey{"msm", 1};
  using BuildRecorder = std::function<void(const msm::MsmBuild&)>;

  MsmElement(std::unique_ptr<msm::MsmStage> stage, const features::FrameHistory& history,
             BuildRecorder record);

  std::string_view name() const override { return "msm build"; }
  // Starts the next build (overlapped: it runs during the next iteration's MD).
  void run(IterationState& it) override;

  std::vector<StateKey> state_keys() const override { return {kKey}; }
  nlohmann::json state() const override;
  void restore(const nlohmann::json& state) override;
  RestorePhase restore_phase() const override { return RestorePhase::AfterHistory; }

  // Waits for the pending build, if any, and records it; `wait_s` gets the wait.
  std::optional<msm::MsmBuild> join(double* wait_s);
  void observe(std::int64_t first_frame,
               const std::vector<features::FrameHistory::WalkerSpan>& spans) {
    stage_->observe(first_frame, spans);
  }
  // The learned space's version; a model of a retired space is rebuilt in the new one now
  // (fix:stale-latent-space), before anything (the MSM spawner) uses it. `explored`: the
  // coverage grid's occupied fraction.
  void follow_space(IterationState& it, std::int64_t space_version, double explored);
  // Resume: the learned space's version before the restored model is checked against it.
  void set_space_version(std::int64_t space_version) { stage_->set_space_version(space_version); }

  const msm::MsmStage& stage() const { return *stage_; }

 private:
  std::unique_ptr<msm::MsmStage> stage_;
  const features::FrameHistory& history_;
  BuildRecorder record_;
};

}  // namespace trails::campaign
