// execution.workers_per_device: auto (docs/execution.md, "Walkers per device from
// measurement"): the decision, as a pure function of what was measured. Trials run k = 1, 2,
// 4, ... walkers per device, doubling; each records the aggregate throughput of a device (steps
// per second summed over its k slots) or the resource error that made k impossible. A larger k
// is kept only when it beats the best so far by more than `min_gain`; the first k that does not,
// or fails, or would exceed `max_workers_per_device`, ends the search. No clock, no engine: the
// executor (packing_tuner.h) measures, this decides, and tests feed it recorded measurements.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace trails::exec {

struct PackingTrial {
  int workers_per_device = 1;
  double steps_per_s = 0.0;  // per device: summed over its slots, averaged over the devices
  int walkers = 0;           // walkers measured (warm-up walkers excluded)
  bool failed = false;       // a walker hit a resource error (out of device memory, ...)
  std::string failure;       // that error
};

struct PackingRule {
  int max_workers_per_device = 8;
  double min_gain = 0.10;  // a larger k must be this much faster (fraction) to be kept
};

struct PackingDecision {
  bool done = false;
  int chosen = 1;  // the best k so far (the one kept when done)
  int next = 1;    // the k to measure next (== chosen when done)
  std::string reason;
};

// `trials` in the order run (k = 1, 2, 4, ...). Throws InternalError for trials out of order.
PackingDecision decide_packing(const std::vector<PackingTrial>& trials, const PackingRule& rule);

// True for an engine error that says the device ran out of a resource (memory, contexts,
// OpenCL CL_OUT_OF_RESOURCES / CL_MEM_OBJECT_ALLOCATION_FAILURE, CUDA out of memory): such a
// failure rejects the k it happened at instead of failing the walker.
bool is_resource_error(const std::string& error);

nlohmann::json to_json(const PackingTrial& trial);
PackingTrial trial_from_json(const nlohmann::json& j);

}  // namespace trails::exec
