// Retraining schedule and feature-memory pruning.
#include "trails/analysis/retraining.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "trails/core/error.h"

namespace trails::analysis {

RetrainController::RetrainController(const RetrainOptions& options) : options_(options) {
  if (options.retrain_freq < 0)
    throw core::InputError("RetrainController: expected retrain_freq >= 0, got " +
                           std::to_string(options.retrain_freq));
  if (options.min_interval < 0)
    throw core::InputError("RetrainController: expected min_interval >= 0, got " +
                           std::to_string(options.min_interval));
  if (options.max_interval < -1 || options.max_interval == 0)
    throw core::InputError("RetrainController: expected max_interval >= 1 or -1 (none), got " +
                           std::to_string(options.max_interval));
  if (!(options.vamp_retrain_tol >= 0))
    throw core::InputError("RetrainController: expected vamp_retrain_tol >= 0");
}

bool RetrainController::should_retrain(std::int64_t iteration, bool has_model,
                                       std::optional<double> current_score) const {
  if (!has_model) return true;
  if (options_.policy == RetrainPolicy::Fixed)
    return options_.retrain_freq > 0 && iteration % options_.retrain_freq == 0;
  if (since_ < options_.min_interval) return false;
  if (options_.max_interval > 0 && since_ >= options_.max_interval) return true;
  if (!reference_ || !current_score) return false;
  const double drop = (*reference_ - *current_score) / std::max(std::abs(*reference_), 1e-9);
  return drop > options_.vamp_retrain_tol;
}

void RetrainController::notify_retrained(std::optional<double> score) {
  since_ = 0;
  if (score) reference_ = reference_ ? std::max(*reference_, *score) : *score;
}

void RetrainController::notify_skipped() { ++since_; }

nlohmann::json RetrainController::state() const {
  nlohmann::json j;
  j["version"] = 1;
  j["iterations_since_retrain"] = since_;
  j["reference_score"] = reference_ ? nlohmann::json(*reference_) : nlohmann::json(nullptr);
  return j;
}

void RetrainController::restore(const nlohmann::json& state) {
  auto bad = [](const std::string& why) {
    return core::InputError("RetrainController::restore: " + why);
  };
  if (!state.is_object() || !state.contains("version") || state["version"] != 1)
    throw bad("expected an object with \"version\": 1");
  const auto& n = state.value("iterations_since_retrain", nlohmann::json());
  if (!n.is_number_integer() || n.get<std::int64_t>() < 0)
    throw bad("expected a non-negative integer \"iterations_since_retrain\"");
  const auto& r = state.value("reference_score", nlohmann::json());
  if (!r.is_null() && !r.is_number()) throw bad("expected a number or null \"reference_score\"");
  since_ = n.get<std::int64_t>();
  reference_ = r.is_null() ? std::nullopt : std::optional<double>(r.get<double>());
}

std::vector<std::size_t> prune_feature_memory(std::size_t n_blocks, std::int64_t first_block_frames,
                                              std::int64_t max_frames, core::Rng& rng) {
  if (first_block_frames < 1)
    throw core::InputError("prune_feature_memory: expected the first block to have frames, got " +
                           std::to_string(first_block_frames));
  if (max_frames < 0)
    throw core::InputError("prune_feature_memory: expected max_frames >= 0, got " +
                           std::to_string(max_frames));
  const auto max_blocks =
      static_cast<std::size_t>(std::max<std::int64_t>(5, max_frames / first_block_frames));
  std::vector<std::size_t> keep;
  if (n_blocks <= max_blocks) {
    keep.resize(n_blocks);
    std::iota(keep.begin(), keep.end(), std::size_t{0});
    return keep;
  }
  const std::size_t n_recent = std::max<std::size_t>(1, (max_blocks - 1) / 4);
  const std::size_t n_middle = max_blocks - 1 - n_recent;
  std::vector<std::size_t> middle(n_blocks - 1 - n_recent);
  std::iota(middle.begin(), middle.end(), std::size_t{1});
  for (std::size_t i = 0; i < n_middle; ++i)  // partial Fisher-Yates: a uniform n_middle-subset
    std::swap(middle[i], middle[i + rng.below(middle.size() - i)]);
  middle.resize(n_middle);
  std::sort(middle.begin(), middle.end());
  keep.push_back(0);
  keep.insert(keep.end(), middle.begin(), middle.end());
  for (std::size_t k = n_blocks - n_recent; k < n_blocks; ++k) keep.push_back(k);
  return keep;
}

}  // namespace trails::analysis
