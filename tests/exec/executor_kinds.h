// Shared by the executor conformance suite: a scripted engine whose instances run a given
// behaviour (and which records the slots it was asked for), small task builders, and the table
// of every executor configuration the suite runs over.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "trails/engines/engine.h"
#include "trails/exec/executor.h"
#include "trails/exec/local/device_plan.h"

namespace trails::exec::testing {

using engines::SegmentResult;
using engines::SegmentTask;

// Each run() calls the behaviour; make_instance() calls are counted and their slots recorded.
class ScriptedEngine final : public engines::Engine {
 public:
  using Behaviour = std::function<SegmentResult(const SegmentTask&)>;
  explicit ScriptedEngine(Behaviour behaviour) : behaviour_(std::move(behaviour)) {}

  std::string name() const override { return "scripted"; }
  using Engine::make_instance;
  std::unique_ptr<engines::EngineInstance> make_instance(const engines::Slot& slot) const override {
    ++instances_made;
    std::lock_guard lock(mutex_);
    slots_seen_.push_back(slot);
    return std::make_unique<Instance>(behaviour_);
  }
  engines::Configuration default_start() const override { return {}; }
  const engines::EngineSystem& system() const override { return system_; }
  engines::EngineCapabilities capabilities() const override { return {}; }
  std::string describe() const override { return "scripted"; }

  std::vector<engines::Slot> slots_seen() const {
    std::lock_guard lock(mutex_);
    return slots_seen_;
  }
  mutable std::atomic<int> instances_made{0};

 private:
  struct Instance final : engines::EngineInstance {
    explicit Instance(Behaviour b) : behaviour(std::move(b)) {}
    SegmentResult run(const SegmentTask& task) override { return behaviour(task); }
    Behaviour behaviour;
  };
  Behaviour behaviour_;
  mutable std::mutex mutex_;
  mutable std::vector<engines::Slot> slots_seen_;
  engines::EngineSystem system_{.n_atoms = 1, .spatial_dim = 1};
};

// Ok, with the task's seed as its only coordinate: a result shows which task it came from.
inline SegmentResult ok_result(const SegmentTask& task) {
  SegmentResult r;
  r.task_id = task.task_id;
  r.status = engines::SegmentStatus::Ok;
  r.final_state.positions = {static_cast<double>(task.seed)};
  return r;
}

inline std::vector<SegmentTask> numbered_tasks(int n) {
  std::vector<SegmentTask> tasks(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    tasks[static_cast<std::size_t>(i)].task_id = i;
    tasks[static_cast<std::size_t>(i)].walker = i;
    tasks[static_cast<std::size_t>(i)].seed = static_cast<std::uint64_t>(100 + i);
  }
  return tasks;
}

struct ExecutorKind {
  const char* name;
  std::function<std::unique_ptr<Executor>(const engines::Engine&)> make;
  int slots;
  std::size_t max_in_flight;
  // Two tasks can run at the same time (two slots and a bound of at least two).
  bool concurrent() const { return slots >= 2 && max_in_flight >= 2; }
};

inline void PrintTo(const ExecutorKind& kind, std::ostream* out) { *out << kind.name; }

inline std::vector<ExecutorKind> all_executor_kinds() {
  const auto pool = [](int slots, std::size_t bound) {
    return [=](const engines::Engine& e) { return make_thread_pool_executor(e, slots, bound); };
  };
  // Device pools through the one factory (devices x workers per device; CUDA_VISIBLE_DEVICES
  // unset, so logical = in-process index). The scripted engine does not use devices.
  const auto devices = [](std::vector<int> ids, int per_device, std::size_t bound) {
    return [=](const engines::Engine& e) {
      ExecutionOptions options;
      options.devices = ids;
      options.workers_per_device = per_device;
      options.max_in_flight = bound;
      return make_executor(e, resolve_devices(options, VisibleDevices{}), options);
    };
  };
  return {
      {"devices1x1", devices({0}, 1, 0), 1, 2},
      {"devices4x2", devices({0, 1, 2, 3}, 2, 0), 8, 16},
      {"devices4x2_bound64", devices({0, 1, 2, 3}, 2, 64), 8, 64},
      {"devices2x4_bound3", devices({3, 5}, 4, 3), 8, 3},
      {"devices8x1", devices({0, 1, 2, 3, 4, 5, 6, 7}, 1, 0), 8, 16},
      {"serial", [](const engines::Engine& e) { return make_serial_executor(e); }, 1, 1},
      {"pool1_bound1", pool(1, 1), 1, 1},
      {"pool1_bound8", pool(1, 8), 1, 8},
      {"pool2", pool(2, 0), 2, 4},
      {"pool2_bound2", pool(2, 2), 2, 2},
      {"pool4_bound1", pool(4, 1), 4, 1},
      {"pool4", pool(4, 0), 4, 8},
      {"pool4_bound64", pool(4, 64), 4, 64},
      {"local1", [](const engines::Engine& e) { return make_local_executor(e, 1); }, 1, 1},
      {"local3", [](const engines::Engine& e) { return make_local_executor(e, 3); }, 3, 6},
      {"local3_bound16", [](const engines::Engine& e) { return make_local_executor(e, 3, 16); }, 3,
       16},
  };
}

}  // namespace trails::exec::testing
