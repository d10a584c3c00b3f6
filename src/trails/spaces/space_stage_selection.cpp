// SpaceStage's feature selection: the feature type ranked by VAMP-2 over the candidates
// (compat:feature-type-ranking), a type switch that recomputes every stored block, and the
// VAMP-2 column selection (compat:vamp-column-selection).
#include "trails/spaces/space_stage.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "trails/analysis/feature_selection.h"
#include "trails/core/error.h"

namespace trails::spaces {
namespace {

using analysis::FrameMatrix;
using analysis::RunningMoments;

}  // namespace

bool SpaceStage::rank_feature_types(std::int64_t iteration,
                                    std::span<const features::FrameHistory::WalkerSpan> spans,
                                    std::span<const double> frames, std::span<const double> boxes,
                                    std::vector<double>& features) {
  // compat:feature-type-ranking: every candidate extracted on the current iteration, scored by
  // VAMP-2 at the selection lag over the walker segments; failing types score -inf and are skipped.
  const auto& candidates = options_.selection.candidate_feature_types;
  std::vector<std::vector<double>> values(candidates.size());
  std::vector<std::optional<RunningMoments>> moments(candidates.size());
  std::vector<analysis::FeatureTypeCandidate> scored;
  std::vector<std::int64_t> lengths;
  for (const auto& s : spans) lengths.push_back(s.n_frames);
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    analysis::FeatureTypeCandidate cand{candidates[c], nullptr};
    try {
      values[c] = features_for(candidates[c], frames, spans, boxes);
      const int d = source_->n_features(candidates[c]);
      Eigen::Map<const FrameMatrix> x(values[c].data(),
                                      static_cast<Eigen::Index>(values[c].size() / d), d);
      moments[c].emplace(d, options_.selection.lagtime);
      moments[c]->add_segments(x, lengths);
      cand.moments = &*moments[c];
    } catch (const core::Error& e) {
      spdlog::warn("iteration {}: feature type {} could not be computed: {}", iteration,
                   candidates[c], e.what());
    }
    scored.push_back(cand);
  }
  const auto ranked = analysis::rank_feature_types(scored);
  ranking_ = nlohmann::json::array();
  for (const auto& r : ranked) {
    ranking_.push_back(
        {{"type", r.name},
         {"vamp2", std::isfinite(r.score) ? nlohmann::json(r.score) : nlohmann::json()}});
  }
  type_chosen_ = true;
  std::string best = type_;
  if (!ranked.empty() && std::isfinite(ranked.front().score)) best = ranked.front().name;
  const bool changed = best != type_;
  if (changed) {
    spdlog::info("iteration {}: feature type {} -> {} (VAMP-2 ranking {})", iteration, type_, best,
                 ranking_.dump());
    switch_type(best);
  }
  const auto it = std::find(candidates.begin(), candidates.end(), type_);
  if (it != candidates.end() &&
      !values[static_cast<std::size_t>(it - candidates.begin())].empty()) {
    features = std::move(values[static_cast<std::size_t>(it - candidates.begin())]);
  } else {
    features = features_for(type_, frames, spans, boxes);
  }
  return changed;
}

void SpaceStage::switch_type(const std::string& type) {
  // A new type changes every feature: the column selection starts over and every stored block
  // (all history, for re-projection) is recomputed in the new type from its committed frames.
  // A background training reads the stored features (start_training): it must be done first.
  if (training_.valid()) training_.wait();
  type_ = type;
  d_ = source_->n_features(type_);
  columns_.reset();
  memory_.clear();
  projected_.clear();
  for (auto& b : blocks_) {
    TRAILS_CHECK(static_cast<bool>(loader_), "a feature-type switch needs the committed frames");
    const Frames f = loader_(b.iteration, b.spans);
    b.features = FeatureRows(features_for(type_, f.positions, b.spans, f.boxes));
    if (std::binary_search(memory_iterations_.begin(), memory_iterations_.end(), b.iteration)) {
      memory_.push_back(block_memory(b));
    }
  }
  for (std::size_t i = 1; i < blocks_.size(); ++i) {
    blocks_[i].first =
        blocks_[i - 1].first + static_cast<std::int64_t>(blocks_[i - 1].features.size()) / d_;
  }
}

void SpaceStage::select_columns(const Memory& training) {
  // compat:vamp-column-selection on the training memory's moments at the selection lag (the exact
  // walker segments stand in for Trails-MD's step // stride blocks).
  const auto& fs = options_.selection;
  const auto cov = analysis::feature_selection_covariances(*training.selection);
  analysis::FeatureSelectionOptions o;
  o.method = fs.greedy ? analysis::FeatureSelectionMethod::GreedyVamp
                       : analysis::FeatureSelectionMethod::All;
  o.max_groups = fs.max_features.value_or(-1);
  o.dim = fs.dim.value_or(-1);
  o.min_gain = fs.min_gain;
  auto sel = analysis::select_features(cov, o);
  if (static_cast<int>(sel.columns.size()) < k_) {
    // Fewer columns than learned dimensions: follow the same greedy path past min_gain.
    o.min_gain = -std::numeric_limits<double>::infinity();
    o.max_groups = k_;
    sel = analysis::select_features(cov, o);
  }
  columns_ = sel.columns;
  selection_score_ = sel.score;
}

}  // namespace trails::spaces
