#include "trails/campaign/learned_space_element.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::campaign {

std::vector<features::FrameHistory::WalkerSpan> ok_spans(const store::IterationRecord& rec) {
  std::vector<features::FrameHistory::WalkerSpan> spans;
  for (const auto& w : rec.walkers) {
    if (w.ok) spans.push_back({w.walker, w.n_frames});
  }
  return spans;
}

LearnedSpaceElement::LearnedSpaceElement(const spaces::SpaceOptions& options,
                                         std::unique_ptr<features::FeatureSource> features,
                                         bool save_features, const features::Projection& projection,
                                         features::FrameHistory& history, CoverageElement& coverage,
                                         const std::optional<store::RunStore>& store,
                                         std::filesystem::path outdir)
    : mode_(options.mode),
      save_features_(save_features),
      projection_(projection),
      history_(history),
      coverage_(coverage),
      store_(store),
      outdir_(std::move(outdir)),
      features_(std::move(features)),
      stage_(std::make_unique<spaces::SpaceStage>(
          options, *features_,
          [this](std::int64_t iteration,
                 std::span<const features::FrameHistory::WalkerSpan> spans) {
            return load_committed_frames(iteration, spans);
          })) {}

void LearnedSpaceElement::run(IterationState& it) {
  // The ledger's CVs are this iteration's projections in the space current now; a molecular run
  // keeps its physical CVs (cvs: or [Rg, RMSD], compat:physical-cvs) in the shard.
  auto& rec = it.rec;
  if (!projection_.is_identity()) {
    rec.observables.push_back({"physical_cvs", projection_.dimension(), std::move(rec.cvs)});
  }
  rec.cvs = stage_->add_iteration(it.iteration, it.spans, rec.positions, rec.boxes);
  // The space has folded this iteration in already, so a non-finite latent CV cannot fail one
  // walker any more: the iteration stops uncommitted (docs/reliability.md, "Non-finite values").
  if (const auto bad = std::find_if_not(rec.cvs.begin(), rec.cvs.end(),
                                        [](double v) { return std::isfinite(v); });
      bad != rec.cvs.end()) {
    throw core::EngineError(fmt::format(
        "iteration {}: the learned space (space_mode {}) gave a non-finite CV ({}) for frame {} "
        "of the iteration; iteration {} was not committed. Continue with --resume; if it "
        "recurs, the features are degenerate: change the feature types or space_mode",
        it.iteration, mode_, *bad, (bad - rec.cvs.begin()) / std::max(1, rec.cv_dim),
        it.iteration));
  }
  if (save_features_) {
    const auto f = stage_->latest_features();
    rec.observables.push_back({"features", stage_->n_features(), {f.begin(), f.end()}});
  }
}

nlohmann::json LearnedSpaceElement::state() const {
  nlohmann::json state = {{kKey.key, stage_->state()}};
  if (auto model = stage_->new_model()) state[kModelKey.key] = std::move(*model);
  return state;
}

void LearnedSpaceElement::restore(const nlohmann::json& state) {
  stage_->restore(state.at(kKey.key), [this](std::int64_t iteration) {
    auto model = store_->load_element_state(iteration, kModelKey.key, kModelKey.version);
    if (!model) {
      throw core::CorruptionError(outdir_.string() + ": iteration " + std::to_string(iteration) +
                                  " holds no space_model element, but the learned space's "
                                  "state says its model is stored there");
    }
    return *model;
  });
}

spaces::SpaceStage::Frames LearnedSpaceElement::load_committed_frames(
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

void LearnedSpaceElement::replay_history() {
  // compat:uniform-grid's new box from the data bounds. Replaying the blocks in order gives the
  // same tables after a retrain as a resumed run builds.
  history_ = features::FrameHistory(stage_->dim());
  coverage_.start_grid(stage_->grid(coverage_.resolution().n_bins()));
  stage_->for_each_projected_block([&](std::int64_t iteration,
                                       std::span<const features::FrameHistory::WalkerSpan> spans,
                                       const std::vector<double>& cvs) {
    history_.append(iteration, spans, cvs);
    coverage_.add_latest();
  });
}

void LearnedSpaceElement::resume(const std::vector<store::IterationRecord>& records) {
  for (const auto& rec : records) {
    const auto spans = ok_spans(rec);
    const auto frames = load_committed_frames(rec.iteration, spans);
    stage_->restore_features(rec.iteration, spans, frames.positions, frames.boxes);
  }
  replay_history();
}

}  // namespace trails::campaign
