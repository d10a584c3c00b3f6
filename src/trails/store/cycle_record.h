// What one committed swarm cycle of one chain records (docs/file-formats.md, "Swarm runs"): the
// store iteration's element state under key "swarm", version kCycleRecordVersion; the swarm's
// record beside a campaign's IterationRecord (records.h). Written by the swarm driver, read by
// its resume and by every report of a swarm run (metrics.csv, the reactive path, progress.png),
// so no reader looks keys up by name.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/core/frame_key.h"

namespace trails::store {

class RunStore;

inline constexpr const char* kCycleRecordKey = "swarm";
inline constexpr int kCycleRecordVersion = 1;

// How the cycle's new anchor came about (docs/swarm.md, "The cycle").
enum class CycleOutcome {
  Extended,    // the τ2 extension of the chosen trial
  Trial,       // the chosen trial's τ1 end: reject_worse_tau2 held, or τ2 failed
  KeptAnchor,  // the previous anchor: reject_worse_anchor held
};
std::string to_string(CycleOutcome outcome);

struct CycleRecord {
  int chain = 0;
  std::int64_t cycle = 0;
  std::vector<double> trial_metrics;  // progress of each trial's τ1 end (NaN: failed)
  std::vector<double> probabilities;  // softmax selection probabilities
  std::int64_t chosen = 0;            // the trial drawn
  double entropy = 0.0;               // of `probabilities`, nats
  double tau2_metric = 0.0;           // progress after τ2 (NaN: failed)
  CycleOutcome outcome = CycleOutcome::Extended;
  // Where the new anchor's frame is stored; none: the chain's start configuration.
  std::optional<core::FrameKey> anchor;
  double anchor_metric = 0.0;
  std::vector<double> anchor_cvs;
  std::vector<double> reference;  // ξ₀ (escape) or ξ* (target) of the chain
  std::vector<double> start_cvs;  // the CVs of the chain's start configuration
  std::int64_t path_steps = 0;    // MD steps along the reactive path up to the new anchor
  double ratchet = 0.0;    // unbind, unfold: the record after this cycle (NaN in other modes)
  bool converged = false;  // the new anchor passes the convergence test
  // The stall rules' memory after this cycle (docs/swarm.md, "Stopping"): the best progress so
  // far and the cycles since it improved; the last stagnation value and the cycles it has held.
  double stall_best = 0.0;
  std::int64_t stall_count = 0;
  double steady_last = 0.0;
  std::int64_t steady_count = 0;
  std::string stop;     // "" (running, converged or capped), "stalled" or "stagnated"
  double wall_s = 0.0;  // first trial submitted → anchor known
};

nlohmann::json to_json(const CycleRecord& record);
// One value of a record: JSON has no NaN, so a value that is not finite is stored as null and
// read back as NaN.
nlohmann::json record_number(double x);
double record_number_from(const nlohmann::json& j);
// Throws InputError naming the field when the JSON is not a version-1 cycle record.
CycleRecord cycle_record_from_json(const nlohmann::json& j);

// Every committed cycle record of a swarm run's store, in commit order (the index is the store
// iteration). Throws InputError when a record is not a version-1 cycle record.
std::vector<CycleRecord> load_cycle_records(const RunStore& store);

}  // namespace trails::store
