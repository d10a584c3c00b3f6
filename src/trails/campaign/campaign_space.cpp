// Learned-space half of the campaign driver (space_mode pca | tica): building the feature
// source, rebuilding the history and bins in a newly fitted space, and recomputing the stored
// features from the shards on resume. The numerics and the retraining decision live in
// spaces::SpaceStage.
#include "trails/campaign/campaign_driver.h"
#include "trails/campaign/features_factory.h"

namespace trails::campaign {

void CampaignDriver::make_learned_space() {
  features_ = make_feature_source(config_, *engine_);
  spaces::SpaceOptions options;
  options.mode = config_.space_mode;
  options.learned = config_.learned;
  options.seed = config_.random_seed;
  options.dim = config_.cv_dimension();
  space_.emplace(
      options, *features_,
      [this](std::int64_t iteration, std::span<const features::FrameHistory::WalkerSpan> spans) {
        return load_committed_frames(iteration, spans);
      });
}

spaces::SpaceStage::Frames CampaignDriver::load_committed_frames(
    std::int64_t iteration, std::span<const features::FrameHistory::WalkerSpan> spans) const {
  std::vector<core::FrameKey> keys;
  for (const auto& s : spans) {
    for (std::int64_t f = 0; f < s.n_frames; ++f) keys.push_back({iteration, s.walker, f});
  }
  spaces::SpaceStage::Frames out;
  for (auto& fr : store_->load_frames(keys)) {
    out.positions.insert(out.positions.end(), fr.positions.begin(), fr.positions.end());
    out.boxes.insert(out.boxes.end(), fr.box.begin(), fr.box.end());
  }
  return out;
}

void CampaignDriver::replay_learned_space() {
  // compat:history-reprojection, and compat:uniform-grid's new box from the data bounds. Replaying
  // the blocks in order gives the same tables after a retrain as a resumed run builds.
  history_ = features::FrameHistory(space_->dim());
  tracker_.emplace(space_->grid(resolution_.n_bins()), config_.spawning.history_window);
  space_->for_each_projected_block([&](std::int64_t iteration,
                                       std::span<const features::FrameHistory::WalkerSpan> spans,
                                       const std::vector<double>& cvs) {
    history_.append(iteration, spans, cvs);
    tracker_->add_latest(history_);
  });
}

void CampaignDriver::rebuild_learned_space() {
  replay_learned_space();
  spawner_->reset_memory();  // old bin ids mean nothing in the new space
}

void CampaignDriver::resume_learned_space(const std::vector<store::IterationRecord>& records) {
  // Features are recomputed from the shards' full-precision frames: the same bits as the
  // uninterrupted run computed from memory.
  for (const auto& rec : records) {
    const auto spans = ok_spans(rec);
    const auto frames = load_committed_frames(rec.iteration, spans);
    space_->restore_features(rec.iteration, spans, frames.positions, frames.boxes);
  }
  replay_learned_space();
}

}  // namespace trails::campaign
