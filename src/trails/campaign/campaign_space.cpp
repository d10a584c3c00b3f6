// Learned-space half of the campaign driver (space_mode pca | tica): rebuilding the history and
// bins in a newly fitted space, and restoring the stored features on resume. The numerics and
// the retraining decision live in SpaceStage.
#include "trails/campaign/campaign_driver.h"

namespace trails::campaign {

void CampaignDriver::replay_learned_space() {
  // Row 76: every stored frame re-projected; row 94: a new box from the data bounds. Replaying
  // the blocks in order gives the same tables after a retrain as a resumed run builds.
  history_ = FrameHistory(space_->dim());
  tracker_.emplace(space_->grid(resolution_.n_bins()), config_.spawning.history_window);
  space_->for_each_projected_block([&](std::int64_t iteration,
                                       std::span<const FrameHistory::WalkerSpan> spans,
                                       const std::vector<double>& cvs) {
    history_.append(iteration, spans, cvs);
    tracker_->add_latest(history_);
  });
}

void CampaignDriver::rebuild_learned_space() {
  replay_learned_space();
  spawner_.reset_memory();  // old bin ids mean nothing in the new space
}

void CampaignDriver::resume_learned_space(const std::vector<store::IterationRecord>& records) {
  for (const auto& rec : records) {
    std::vector<FrameHistory::WalkerSpan> spans;
    std::vector<core::FrameKey> keys;
    for (const auto& w : rec.walkers) {
      if (!w.ok) continue;
      spans.push_back({w.walker, w.n_frames});
      for (std::int64_t f = 0; f < w.n_frames; ++f) keys.push_back({rec.iteration, w.walker, f});
    }
    std::vector<double> features;
    for (auto& p : store_->load_positions(keys))
      features.insert(features.end(), p.begin(), p.end());
    space_->restore_features(rec.iteration, spans, features);
  }
  replay_learned_space();
}

}  // namespace trails::campaign
