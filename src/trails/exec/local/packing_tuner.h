// The executor of execution.workers_per_device: auto (docs/execution.md, "Walkers per device
// from measurement"). It runs the driver's walkers on a device pool of k = 1 walker per device,
// then 2, 4, ... (one pool at a time, each slot's first walker a warm-up that is not measured),
// measures each k's aggregate throughput per device from the walkers it ran, asks
// decide_packing (packing_tuning.h) for the next k, and ends on the chosen k's pool. Every walker
// is a real walker of the campaign and its result is passed on unchanged, so wherever a walker
// is a pure function of its task (built-in engine, OpenMM Reference/CPU) the results equal those
// of any fixed k bitwise. A walker that fails with a resource error at a k above 1 rejects that k
// and runs again on the chosen pool; other failures pass through as failures.
// Threads: as Executor (one producer, one consumer); the pool switch happens on the consumer's
// thread inside next_completed.
#pragma once

#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/exec/executor.h"
#include "trails/exec/local/device_plan.h"
#include "trails/exec/local/packing_tuning.h"

namespace trails::exec {

struct PackingTunerOptions {
  PackingRule rule;
  int measured_per_slot = 2;  // walkers measured per slot at each k, after its warm-up walker
  // Trials of the run before a resume: the search continues (or its choice stands) from there.
  std::vector<PackingTrial> earlier;
};

class PackingTuner : public Executor {
 public:
  // The search so far: {"trials": [...], "done", "chosen", "next", "reason", "rule": {...},
  // "measured_per_slot"}; what the ledger records and trails advise shows.
  virtual nlohmann::json record() const = 0;
  virtual int workers_per_device() const = 0;  // of the pool running now
};

// `plan`'s workers_per_device is ignored (each k makes its own plan); `options` as for
// make_executor. Throws ConfigError when the plan has no devices.
std::unique_ptr<PackingTuner> make_packing_tuner(const engines::Engine& engine, DevicePlan plan,
                                                 ExecutionOptions options,
                                                 PackingTunerOptions tuning);

}  // namespace trails::exec
