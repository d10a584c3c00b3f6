// SpaceStage's models: the training set of a retrain (MinMax range, selected columns, the memory's
// moments or its blocks' feature rows), installing a model (the grid box of the re-projected
// frames), a neural retrain on its background thread and the ledger element that stores the
// model; row-wise projection and the VAMP-2 score of the current model.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <numeric>

#include "trails/core/base64.h"
#include "trails/core/error.h"
#include "trails/spaces/space_stage.h"

namespace trails::spaces {
namespace {

// The "space_model" element's format (its `version` member; the ledger row stays version 1):
// 2 holds the weights as a JSON binary value, which the store keeps as raw bytes beside the
// element (docs/file-formats.md, element_attachments); 1, written before, as base64 text.
constexpr int kModelElementVersion = 2;
constexpr int kBase64ModelElementVersion = 1;

}  // namespace
std::optional<double> SpaceStage::score(const Block& b, const Memory& m) const {
  if (!model_) return std::nullopt;
  std::vector<std::int64_t> segments;
  for (const auto& s : b.spans) segments.push_back(s.n_frames);
  return model_->score(b.features, segments, m.model);
}

// Only retrain_policy vamp_adaptive reads the reference. A TICA space on the reversible
// moments skips it otherwise (its score needs this block's non-symmetric moments, which would
// cost more than the fit); the running moments keep it, so runs created before stay bitwise.
std::optional<double> SpaceStage::reference_score(const Block& b, const Memory& m) const {
  if (is_reversible(m.model.algorithm()) &&
      options_.retrain_policy != config::RetrainPolicyKind::VampAdaptive) {
    return std::nullopt;
  }
  return score(b, m);
}

std::vector<double> SpaceStage::project(std::span<const double> features) const {
  return model_->project(features, threads_);
}

analysis::LinearProjection SpaceStage::projection() const {
  TRAILS_CHECK(model_ && !trainer_->needs_rows(), "a linear space with a fitted model");
  return analysis::LinearProjection::from_flat(model_->state().get<std::vector<double>>());
}

TrainingSet SpaceStage::training_set(std::int64_t iteration, const Memory& training) const {
  TrainingSet set;
  set.iteration = iteration;
  set.n_features = d_;
  set.dim = k_;
  set.lagtime = options_.lagtime;
  if (columns_) {
    set.columns = *columns_;
  } else {
    set.columns.resize(static_cast<std::size_t>(d_));
    std::iota(set.columns.begin(), set.columns.end(), 0);
  }
  // MinMax scaling with the training range; a constant feature keeps scale 1 (scikit-learn).
  set.lo = training.lo;
  set.scale.assign(static_cast<std::size_t>(d_), 1.0);
  for (int i = 0; i < d_; ++i) {
    const double r = training.hi[i] - training.lo[i];
    if (r > 0) set.scale[i] = r;
  }
  if (!trainer_->needs_rows()) {
    set.moments = training.model;
    return set;
  }
  // The memory blocks' rows, in memory order, with their exact walker segments: time-lagged pairs
  // are formed inside each segment only (fix:walker-segment-pairs).
  const auto add_block = [&](const Block& b) {
    const auto d = static_cast<std::size_t>(d_);
    const std::size_t n = b.features.size() / d;
    for (std::size_t r = 0; r < n; ++r) {
      for (const int c : set.columns) {
        const auto cc = static_cast<std::size_t>(c);
        set.rows.push_back((b.features[r * d + cc] - set.lo[cc]) / set.scale[cc]);
      }
    }
    for (const auto& s : b.spans) set.segments.push_back(s.n_frames);
  };
  if (!options_.aggregate_memory) {
    add_block(blocks_.back());
    return set;
  }
  for (const auto it : memory_iterations_) {
    const auto b = std::lower_bound(blocks_.begin(), blocks_.end(), it,
                                    [](const Block& x, std::int64_t i) { return x.iteration < i; });
    TRAILS_CHECK(b != blocks_.end() && b->iteration == it, "memory iterations are stored blocks");
    add_block(*b);
  }
  return set;
}

TrainingSet SpaceStage::current_training_set() const {
  TRAILS_CHECK(!blocks_.empty(), "a training set needs an iteration");
  return training_set(blocks_.back().iteration, training_memory(block_memory(blocks_.back())));
}

void SpaceStage::install(std::unique_ptr<SpaceModel> model,
                         std::optional<learned::TrainingRecord> record, std::int64_t trained_at,
                         std::int64_t iteration, std::vector<std::vector<double>> projected) {
  model_ = std::move(model);
  const bool neural = trainer_->needs_rows();
  record_ = neural ? std::move(record) : std::nullopt;
  model_is_new_ = neural;
  model_trained_at_ = trained_at;
  model_iteration_ = iteration;
  retrained_ = true;
  ++version_;
  // Grid box: data bounds of every re-projected frame, widened by 10 % of the span
  // (compat:uniform-grid).
  lo_.assign(k_, std::numeric_limits<double>::infinity());
  hi_.assign(k_, -std::numeric_limits<double>::infinity());
  TRAILS_CHECK(projected.size() <= blocks_.size(), "projected blocks are stored blocks");
  projected_ = std::move(projected);
  for (std::size_t i = projected_.size(); i < blocks_.size(); ++i) {
    projected_.push_back(project(blocks_[i].features));
  }
  for (const auto& y : projected_) {
    for (std::size_t r = 0; r < y.size(); r += static_cast<std::size_t>(k_)) {
      for (int j = 0; j < k_; ++j) {
        lo_[j] = std::min(lo_[j], y[r + j]);
        hi_[j] = std::max(hi_[j], y[r + j]);
      }
    }
  }
  for (int j = 0; j < k_; ++j) {
    const double span = hi_[j] - lo_[j];
    const double pad = span > 0 ? 0.1 * span : 0.5;  // a constant projection still gets a box
    lo_[j] -= pad;
    hi_[j] += pad;
  }
}

void SpaceStage::start_training() {
  if (!pending_ || training_.valid()) return;
  // The set is built now, on this thread, from the memory as the deciding iteration left it
  // (nothing changes it before the next add_iteration), so a resumed run builds the same set.
  TrainingSet set = current_training_set();
  TRAILS_CHECK(set.iteration == *pending_, "a pending retrain starts before the next block");
  // The new model also projects every block stored now, on the same thread: after the MD only
  // the new iteration's frames are left to project (docs/performance.md, "Learned-space overhead
  // per iteration"). Projection is row-wise, so the CVs are the bits install() would compute.
  // The blocks' feature buffers stay put while blocks_ grows; switch_type, the one writer of
  // stored features, waits for this task first.
  std::vector<std::span<const double>> history;
  for (const auto& b : blocks_) history.emplace_back(b.features);
  training_ = std::async(std::launch::async, [this, set = std::move(set), history] {
    Trained t;
    const auto t0 = std::chrono::steady_clock::now();
    t.model = trainer_->train(set, t.record);
    const auto t1 = std::chrono::steady_clock::now();
    t.seconds = std::chrono::duration<double>(t1 - t0).count();
    for (const auto features : history) t.projected.push_back(t.model->project(features, 1));
    t.projection_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    return t;
  });
}

bool SpaceStage::join_training(std::int64_t iteration, bool discard) {
  TRAILS_CHECK(training_.valid(), "a pending retrain was started before its join");
  const auto t0 = std::chrono::steady_clock::now();
  Trained t = training_.get();
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::int64_t trained_at = *pending_;
  pending_.reset();
  if (discard) return false;
  // Timings go to the log only: the ledger holds what is reproducible.
  spdlog::info(
      "iteration {}: the {} network decided at iteration {} takes effect ({} epochs, {:.3f} s of "
      "training during the MD, {:.3f} s waited for it; {} earlier iterations projected in {:.3f} "
      "s during the MD)",
      iteration, mode_, trained_at, t.record.epochs_run, t.seconds, waited, t.projected.size(),
      t.projection_seconds);
  install(std::move(t.model), std::move(t.record), trained_at, iteration, std::move(t.projected));
  return true;
}

std::optional<nlohmann::json> SpaceStage::new_model() const {
  if (!model_is_new_) return std::nullopt;
  // The weights as a JSON binary value: the store keeps them as raw bytes, not as base64
  // through JSON (docs/performance.md, "Learned-space overhead per iteration").
  const std::string bytes = model_->bytes();
  const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data());
  return nlohmann::json{{"version", kModelElementVersion},
                        {"kind", mode_},
                        {"trained_at", model_trained_at_},
                        {"applied_at", model_iteration_},
                        {"training", record_->to_json()},
                        {"weights", nlohmann::json::binary({p, p + bytes.size()})}};
}

std::string model_weights(const nlohmann::json& element) {
  const int version = element.is_object() ? element.value("version", 0) : 0;
  const nlohmann::json* weights =
      element.is_object() && element.contains("weights") ? &element.at("weights") : nullptr;
  if (version == kModelElementVersion && weights != nullptr && weights->is_binary()) {
    const auto& b = weights->get_binary();
    return {reinterpret_cast<const char*>(b.data()), b.size()};
  }
  if (version == kBase64ModelElementVersion && weights != nullptr && weights->is_string()) {
    return core::base64_decode(weights->get<std::string>());  // runs made before version 2
  }
  throw core::CorruptionError(
      "ledger state: the stored learned-space model (element space_model, format version " +
      std::to_string(version) + "; this Trails reads 1 and 2) is missing or malformed");
}

}  // namespace trails::spaces
