// When to refit a learned CV space, and which feature blocks its training memory keeps
// (compat:retrain-policy). Pure logic: the controller's state is a small JSON value for
// the run store; the memory pruning draws from a caller-supplied keyed Rng stream.
// Throws core::InputError for bad options and malformed state.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "trails/core/rng.h"

namespace trails::analysis {

enum class RetrainPolicy {
  Fixed,         // retrain iff retrain_freq > 0 and iteration % retrain_freq == 0
  VampAdaptive,  // retrain when the current model's VAMP-2 drops by more than vamp_retrain_tol
};

struct RetrainOptions {
  RetrainPolicy policy = RetrainPolicy::Fixed;
  int retrain_freq = 1;           // fixed policy; 0 = never after the first fit
  double vamp_retrain_tol = 0.1;  // relative drop (ref - cur) / max(|ref|, 1e-9)
  int min_interval = 1;           // no retrain fewer than this many iterations after the last
  int max_interval = -1;          // retrain at the latest this many iterations after; -1: none
};

class RetrainController {
 public:
  explicit RetrainController(const RetrainOptions& options);

  // No model: true. Fixed: the schedule. VampAdaptive: false while iterations_since_retrain <
  // min_interval; true once it reaches max_interval (if set); false if the reference or the
  // current score is missing; else true iff the relative drop exceeds vamp_retrain_tol.
  bool should_retrain(std::int64_t iteration, bool has_model,
                      std::optional<double> current_score) const;
  // After a fit: counter to 0; reference = max(reference, score) (score absent: unchanged).
  void notify_retrained(std::optional<double> score);
  // After an iteration without a fit: counter + 1.
  void notify_skipped();

  std::int64_t iterations_since_retrain() const { return since_; }
  std::optional<double> reference_score() const { return reference_; }

  // {"version": 1, "iterations_since_retrain": n, "reference_score": x | null}
  nlohmann::json state() const;
  void restore(const nlohmann::json& state);

 private:
  RetrainOptions options_;
  std::int64_t since_ = 0;
  std::optional<double> reference_;
};

// Indices (ascending) of the per-iteration feature blocks a bounded training memory keeps.
// max_blocks = max(5, max_frames / first_block_frames); if n_blocks <= max_blocks all are kept,
// else block 0 (the anchor), the last n_recent = max(1, (max_blocks - 1) / 4) blocks, and
// max_blocks - 1 - n_recent blocks drawn without replacement from the rest (kept chronological).
std::vector<std::size_t> prune_feature_memory(std::size_t n_blocks, std::int64_t first_block_frames,
                                              std::int64_t max_frames, core::Rng& rng);

}  // namespace trails::analysis
