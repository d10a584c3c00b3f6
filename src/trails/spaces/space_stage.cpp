// SpaceStage: construction, each iteration's flow (features, training memory, the retrain
// decision), resume and the ledger state. Training, installing and projecting are in
// space_stage_training.cpp, feature-type ranking and column selection in
// space_stage_selection.cpp; the models themselves behind space_model.h.
#include "trails/spaces/space_stage.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "trails/core/error.h"
#include "trails/core/rng.h"
#include "trails/core/thread_pool.h"

namespace trails::spaces {
namespace {

using analysis::FrameMatrix;
using analysis::RunningMoments;

analysis::RetrainOptions retrain_options(const config::LearnedSpaceConfig& l) {
  analysis::RetrainOptions o;
  o.policy = l.retrain_policy == config::RetrainPolicyKind::VampAdaptive
                 ? analysis::RetrainPolicy::VampAdaptive
                 : analysis::RetrainPolicy::Fixed;
  o.retrain_freq = l.retrain_freq;
  o.vamp_retrain_tol = l.vamp_retrain_tol;
  o.min_interval = l.retrain_min_interval;
  o.max_interval = l.retrain_max_interval.value_or(-1);
  return o;
}

// New runs: TICA on the reversible moments in the fixed row order, PCA on the running ones (it
// needs the instantaneous moments), neural spaces on none (they train on rows).
MomentsAlgorithm default_moments(const std::string& mode) {
  if (is_neural_space(mode)) return MomentsAlgorithm::Frames;
  return mode == "tica" ? MomentsAlgorithm::ReversibleRows : MomentsAlgorithm::Running;
}

}  // namespace

SpaceStage::SpaceStage(const SpaceOptions& options, std::unique_ptr<features::FeatureSource> owned,
                       const features::FeatureSource* source, FrameLoader loader)
    : mode_(options.mode),
      moments_(options.moments.value_or(default_moments(options.mode))),
      threads_(options.threads),
      options_(options.learned),
      seed_(options.seed),
      owned_source_(std::move(owned)),
      source_(owned_source_ ? owned_source_.get() : source),
      loader_(std::move(loader)),
      type_(source_->types().front()),
      d_(source_->n_features(type_)),
      k_(options.dim),
      controller_(retrain_options(options.learned)),
      trainer_(make_space_trainer(mode_, options.learned.model, options.seed)) {
  TRAILS_CHECK(k_ >= 1, "at least one learned dimension");
  TRAILS_CHECK(mode_ != "pca" || moments_ == MomentsAlgorithm::Running,
               "PCA needs the running (instantaneous) moments");
  if (k_ > d_) {
    throw core::ConfigError(fmt::format(
        "n_bins: {} axes ask for a {}-dimensional learned space (adaptive_model.latent_dim = "
        "len(n_bins)), but the {} features have only {} column(s); use at most {} n_bins axes",
        k_, k_, type_, d_, d_));
  }
}

SpaceStage::~SpaceStage() {
  if (training_.valid()) training_.wait();  // never leave a training running on destroyed state
}

SpaceStage::SpaceStage(const SpaceOptions& options, const features::FeatureSource& source,
                       FrameLoader loader)
    : SpaceStage(options, nullptr, &source, std::move(loader)) {}

SpaceStage::SpaceStage(const SpaceOptions& options, int n_features)
    : SpaceStage(options, features::make_coordinate_features(n_features), nullptr, {}) {}

void SpaceStage::Memory::merge(const Memory& other) {
  model.merge(other.model);
  if (selection) selection->merge(*other.selection);
  if (lo.empty()) {
    lo = other.lo;
    hi = other.hi;
    return;
  }
  for (std::size_t i = 0; i < lo.size(); ++i) {
    lo[i] = std::min(lo[i], other.lo[i]);
    hi[i] = std::max(hi[i], other.hi[i]);
  }
}

SpaceStage::Memory SpaceStage::empty_memory() const {
  std::optional<RunningMoments> sel;
  if (options_.selection.enabled) sel.emplace(d_, options_.selection.lagtime);
  return Memory{0, SpaceMoments(moments_, d_, options_.lagtime), std::move(sel), {}, {}};
}

void SpaceStage::append_block(std::int64_t iteration,
                              std::span<const features::FrameHistory::WalkerSpan> spans,
                              FeatureRows features) {
  Block b;
  b.iteration = iteration;
  b.first = blocks_.empty() ? 0
                            : blocks_.back().first +
                                  static_cast<std::int64_t>(blocks_.back().features.size()) / d_;
  b.spans.assign(spans.begin(), spans.end());
  std::int64_t frames = 0;
  for (const auto& s : spans) frames += s.n_frames;
  TRAILS_CHECK(static_cast<std::int64_t>(features.size()) == frames * d_,
               "features match the walker spans");
  b.features = std::move(features);
  blocks_.push_back(std::move(b));
}

SpaceStage::Memory SpaceStage::block_memory(const Block& b) const {
  return block_memory(b, feature_range(b.features, d_, threads_));
}

SpaceStage::Memory SpaceStage::block_memory(const Block& b, FeatureRows::Range range) const {
  Memory m = empty_memory();
  m.iteration = b.iteration;
  std::vector<std::int64_t> lengths;
  for (const auto& s : b.spans) lengths.push_back(s.n_frames);
  const auto rows = static_cast<Eigen::Index>(b.features.size() / static_cast<std::size_t>(d_));
  Eigen::Map<const FrameMatrix> frames(b.features.data(), rows, d_);
  m.model.add_segments(frames, lengths, threads_);
  if (m.selection)
    m.selection->add_segments(frames, lengths,
                              threads_ > 0 ? threads_ : core::default_pool().size());
  m.lo = std::move(range.lo);
  m.hi = std::move(range.hi);
  return m;
}

std::vector<double> SpaceStage::features_for(
    const std::string& type, std::span<const double> frames,
    std::span<const features::FrameHistory::WalkerSpan> spans,
    std::span<const double> boxes) const {
  std::int64_t n = 0;
  for (const auto& s : spans) n += s.n_frames;
  return source_->compute(type, frames, n, boxes);
}

FeatureRows SpaceStage::current_features(std::span<const double> frames,
                                         std::span<const features::FrameHistory::WalkerSpan> spans,
                                         std::span<const double> boxes,
                                         FeatureRows::Range& range) const {
  if (source_->is_identity()) {
    std::int64_t n = 0;
    for (const auto& s : spans) n += s.n_frames;
    TRAILS_CHECK(static_cast<std::int64_t>(frames.size()) == n * d_,
                 "coordinate features match the walker spans");
    return FeatureRows::copy_with_range(frames, d_, threads_, range);
  }
  FeatureRows rows(features_for(type_, frames, spans, boxes));
  range = feature_range(rows, d_, threads_);
  return rows;
}

std::vector<double> SpaceStage::add_iteration(
    std::int64_t iteration, std::span<const features::FrameHistory::WalkerSpan> spans,
    std::span<const double> frames, std::span<const double> boxes) {
  // A retrain prepared at the previous iteration must see that iteration's memory: a caller
  // that did not start it during the MD starts it here, before this block changes the memory.
  start_training();
  const auto& fs = options_.selection;
  bool type_changed = false;
  FeatureRows::Range range;
  if (fs.enabled && !fs.candidate_feature_types.empty() &&
      (!type_chosen_ || iteration % fs.cadence == 0)) {
    std::vector<double> features;
    type_changed = rank_feature_types(iteration, spans, frames, boxes, features);
    append_block(iteration, spans, FeatureRows(std::move(features)));
    range = feature_range(blocks_.back().features, d_, threads_);
  } else {
    append_block(iteration, spans, current_features(frames, spans, boxes, range));
  }
  Memory current = block_memory(blocks_.back(), std::move(range));
  if (options_.aggregate_memory) {
    memory_iterations_.push_back(iteration);
    memory_.push_back(current);
    if (memory_.size() == 1) first_block_frames_ = current.model.n_frames();
    core::Rng rng =
        core::Rng::stream(seed_, "feature-memory", static_cast<std::uint64_t>(iteration));
    const auto keep = analysis::prune_feature_memory(memory_.size(), first_block_frames_,
                                                     options_.max_adaptive_memory_frames, rng);
    if (keep.size() < memory_.size()) {
      std::vector<std::int64_t> its;
      std::vector<Memory> kept;
      for (const auto i : keep) {
        its.push_back(memory_iterations_[i]);
        kept.push_back(std::move(memory_[i]));
      }
      memory_iterations_ = std::move(its);
      memory_ = std::move(kept);
    }
  }
  retrained_ = false;
  model_is_new_ = false;
  // A neural retrain prepared at the previous iteration trained during this iteration's MD and
  // takes effect now; a new feature type makes it unusable (docs/cvs.md).
  if (pending_ && join_training(iteration, type_changed)) {
    controller_.notify_retrained(reference_score(blocks_.back(), current));
  }
  // A new feature type makes the old model unusable: it is refitted whatever the policy says.
  const std::optional<double> current_score =
      options_.retrain_policy == config::RetrainPolicyKind::VampAdaptive && !type_changed
          ? score(blocks_.back(), current)
          : std::nullopt;
  if (type_changed || controller_.should_retrain(iteration, has_model(), current_score)) {
    const Memory training = training_memory(current);
    if (fs.enabled && (!columns_ || iteration % fs.cadence == 0)) select_columns(training);
    if (trainer_->overlaps_md() && has_model() && !type_changed) {
      pending_ = iteration;  // trains during the next MD (start_training), applies after it
    } else {
      learned::TrainingRecord record;
      const auto t0 = std::chrono::steady_clock::now();
      auto model = trainer_->train(training_set(iteration, training), record);
      if (trainer_->needs_rows()) {
        spdlog::info("iteration {}: {} network trained ({} epochs, {:.3f} s, before the spawn)",
                     iteration, mode_, record.epochs_run,
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      install(std::move(model), record, iteration, iteration);
      controller_.notify_retrained(reference_score(blocks_.back(), current));
    }
  } else {
    controller_.notify_skipped();
  }
  if (retrained_) return projected_.back();  // install() projected every block
  std::vector<double> cvs = project(blocks_.back().features);
  if (projected_.size() + 1 == blocks_.size()) projected_.push_back(cvs);
  return cvs;
}

SpaceStage::Memory SpaceStage::training_memory(const Memory& current) const {
  if (!options_.aggregate_memory) return current;
  Memory training = empty_memory();
  for (const auto& m : memory_) training.merge(m);  // chronological: deterministic bits
  return training;
}

void SpaceStage::restore_features(std::int64_t iteration,
                                  std::span<const features::FrameHistory::WalkerSpan> spans,
                                  std::span<const double> frames, std::span<const double> boxes) {
  FeatureRows::Range range;
  append_block(iteration, spans, current_features(frames, spans, boxes, range));
  // The memory's statistics are a pure function of the blocks' features, so the state keeps
  // only which iterations it holds and they are recomputed here, bit for bit.
  if (std::binary_search(memory_iterations_.begin(), memory_iterations_.end(), iteration)) {
    memory_.push_back(block_memory(blocks_.back(), std::move(range)));
  }
}

binning::UniformGrid SpaceStage::grid(const std::vector<int>& n_bins) const {
  TRAILS_CHECK(has_model(), "a learned grid needs a fitted model");
  return binning::UniformGrid(n_bins, lo_, hi_);
}

std::span<const double> SpaceStage::features_of(std::int64_t global) const {
  auto it = std::upper_bound(blocks_.begin(), blocks_.end(), global,
                             [](std::int64_t g, const Block& b) { return g < b.first; });
  TRAILS_CHECK(it != blocks_.begin(), "global frame index in range");
  const Block& b = *std::prev(it);
  const auto offset = static_cast<std::size_t>((global - b.first) * d_);
  TRAILS_CHECK(offset < b.features.size(), "global frame index in range");
  return std::span<const double>(b.features).subspan(offset, static_cast<std::size_t>(d_));
}

nlohmann::json SpaceStage::state() const {
  const bool neural = trainer_->needs_rows();
  nlohmann::json s = {
      {"version", 2},
      {"mode", mode_},
      {"space_version", version_},
      {"projection", model_ && !neural ? model_->state() : nlohmann::json()},
      {"min_values", lo_},
      {"max_values", hi_},
      {"controller", controller_.state()},
      {"memory_iterations", memory_iterations_},
      {"first_block_frames", first_block_frames_},
      {"feature_type", type_},
      {"feature_type_ranked", type_chosen_},
      {"feature_type_ranking", ranking_},
      {"selected_columns", columns_ ? nlohmann::json(*columns_) : nlohmann::json()},
      {"selection_score", columns_ ? nlohmann::json(selection_score_) : nlohmann::json()}};
  // Only TICA runs created since the reversible moments record them; without the key a state
  // is on the running moments, so a run created before resumes bitwise.
  if (is_reversible(moments_)) s["moments"] = moments_algorithm_name(moments_);
  if (neural) {  // linear states keep their keys (and bytes) of before
    s["model"] = model_ ? model_->state() : nlohmann::json();
    s["model_iteration"] = model_iteration_;
    s["model_trained_at"] = model_trained_at_;
    s["pending_training"] = pending_ ? nlohmann::json(*pending_) : nlohmann::json();
  }
  return s;
}

void SpaceStage::restore(const nlohmann::json& state, const ModelLoader& models) {
  if (!state.is_object() || state.value("version", 0) != 2 || state.value("mode", "") != mode_) {
    throw core::CorruptionError("ledger state: the learned-space state is missing or malformed");
  }
  version_ = state.at("space_version").get<std::int64_t>();
  if (!trainer_->needs_rows()) {
    const auto name = state.value("moments", std::string("running"));
    const auto algorithm = parse_moments_algorithm(name);
    if (!algorithm || *algorithm == MomentsAlgorithm::Frames ||
        (mode_ == "pca" && *algorithm != MomentsAlgorithm::Running)) {
      throw core::CorruptionError(fmt::format(
          "ledger state: the learned space's moments algorithm \"{}\" is not one a {} space "
          "uses (running, or reversible or reversible_rows for tica); the run was written by "
          "another Trails",
          name, mode_));
    }
    moments_ = *algorithm;
  }
  model_.reset();
  record_.reset();
  pending_.reset();
  if (trainer_->needs_rows()) {
    model_iteration_ = state.at("model_iteration").get<std::int64_t>();
    model_trained_at_ = state.at("model_trained_at").get<std::int64_t>();
    if (!state.at("model").is_null()) {
      TRAILS_CHECK(static_cast<bool>(models), "a neural space resumes with its stored model");
      const nlohmann::json stored = models(model_iteration_);
      model_ = trainer_->restore(state.at("model"), model_weights(stored));
      record_ = learned::TrainingRecord::from_json(stored.at("training"));
    }
    if (!state.at("pending_training").is_null()) {
      pending_ = state.at("pending_training").get<std::int64_t>();
    }
  } else if (!state.at("projection").is_null()) {
    model_ = trainer_->restore(state.at("projection"), {});
  }
  lo_ = state.at("min_values").get<std::vector<double>>();
  hi_ = state.at("max_values").get<std::vector<double>>();
  controller_.restore(state.at("controller"));
  memory_iterations_ = state.at("memory_iterations").get<std::vector<std::int64_t>>();
  memory_.clear();  // refilled by restore_features()
  blocks_.clear();
  projected_.clear();
  first_block_frames_ = state.at("first_block_frames").get<std::int64_t>();
  type_ = state.at("feature_type").get<std::string>();
  d_ = source_->n_features(type_);
  type_chosen_ = state.at("feature_type_ranked").get<bool>();
  ranking_ = state.at("feature_type_ranking");
  columns_.reset();
  selection_score_ = 0;
  if (!state.at("selected_columns").is_null()) {
    columns_ = state.at("selected_columns").get<std::vector<int>>();
    selection_score_ = state.at("selection_score").get<double>();
  }
}

}  // namespace trails::spaces
