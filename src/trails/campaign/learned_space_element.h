// Private to the campaign module: the learned-space element (space_mode other than fixed;
// docs/architecture.md, "Campaign elements"). Owns the feature source (features_factory.h) and
// the SpaceStage (spaces/space_stage.h: the numerics and the retraining decision). Its step turns
// the iteration's frames into features and CVs in the current space; after a refit it replays
// the frame history and the coverage tables in the new space. The frames of earlier iterations
// (a feature-type switch, resume) and neural models of earlier iterations come from the run
// store. State keys "space" (the stage) and "space_model" (a neural model's weights, written
// with the iteration where it takes effect).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "trails/campaign/campaign_element.h"
#include "trails/campaign/coverage_element.h"
#include "trails/features/feature_source.h"
#include "trails/features/frame_history.h"
#include "trails/features/projection.h"
#include "trails/spaces/space_stage.h"
#include "trails/store/run_store.h"

namespace trails::campaign {

class LearnedSpaceElement final : public IterationElement, public CheckpointClient {
 public:
  static constexpr StateKey kKey{"space", 1};
  static constexpr StateKey kModelKey{"space_model", 1};

  // `projection`: the fixed projection (a molecular run keeps its CVs as physical_cvs);
  // `history` is replaced after a refit; `store` is read only when it holds a value.
  LearnedSpaceElement(const spaces::SpaceOptions& options,
                      std::unique_ptr<features::FeatureSource> features, bool save_features,
                      const features::Projection& projection, features::FrameHistory& history,
                      CoverageElement& coverage, const std::optional<store::RunStore>& store,
                      std::filesystem::path outdir);

  std::string_view name() const override { return "learned space"; }
  void run(IterationState& it) override;

  std::vector<StateKey> state_keys() const override { return {kKey, kModelKey}; }
  nlohmann::json state() const override;
  void restore(const nlohmann::json& state) override;

  // A neural retrain prepared by the last iteration, on a background thread (during the MD).
  void start_training() { stage_->start_training(); }
  // Every committed frame again in the current space: the history and the coverage tables on
  // the space's grid (compat:history-reprojection).
  void replay_history();
  // Resume: the features of every committed iteration recomputed from the shards' frames (the
  // same bits the uninterrupted run computed from memory), then replay_history().
  void resume(const std::vector<store::IterationRecord>& records);

  const spaces::SpaceStage& stage() const { return *stage_; }

 private:
  // One committed iteration's frames (positions and boxes) from its shard.
  spaces::SpaceStage::Frames load_committed_frames(
      std::int64_t iteration, std::span<const features::FrameHistory::WalkerSpan> spans) const;

  std::string mode_;
  bool save_features_;
  const features::Projection& projection_;
  features::FrameHistory& history_;
  CoverageElement& coverage_;
  const std::optional<store::RunStore>& store_;
  std::filesystem::path outdir_;
  std::unique_ptr<features::FeatureSource> features_;  // before stage_, which refers to it
  std::unique_ptr<spaces::SpaceStage> stage_;
};

// The walker segments of a committed iteration (its ok walkers, in walker order).
std::vector<features::FrameHistory::WalkerSpan> ok_spans(const store::IterationRecord& rec);

}  // namespace trails::campaign
