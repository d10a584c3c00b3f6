// Cross-field rules of device placement (docs/execution.md, "Devices and packing"):
// execution.devices and Trails-MD's engine.gpu_ids are one setting, so only one may be given;
// a device is listed once (more walkers per device: execution.workers_per_device, which needs
// devices). Whether a logical index exists depends on CUDA_VISIBLE_DEVICES at run time and is
// checked when the campaign starts (exec::resolve_devices). With execution.backend: mpi the
// worker ranks are the persistent workers, and a rank cannot be stopped alone
// (docs/execution.md, "MPI ranks"). Scheduler arrays: see check_scheduler.
#include <algorithm>
#include <string>

#include "trails/config/cross_checks.h"

namespace trails::config::detail {
namespace {

bool given(const Entry& e) { return e.present && e.valid && e.value.is_array(); }

void check_distinct(const Entry& e, const std::string& key, Problems& problems) {
  const auto values = e.value.get<std::vector<int>>();
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (std::find(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(i), values[i]) !=
        values.begin() + static_cast<std::ptrdiff_t>(i)) {
      problems.add(i < e.element_at.size() ? e.element_at[i] : e.value_at,
                   key + "[" + std::to_string(i) + "]",
                   "device " + std::to_string(values[i]) +
                       " is listed twice; list each device once and raise "
                       "execution.workers_per_device to run more walkers on it");
      return;
    }
  }
}

void check_mpi(const RawConfig& raw, Problems& problems) {
  if (!raw.usable("execution.backend") || raw.value("execution.backend") != "mpi") return;
  const Entry& timeout = raw.at("execution.walker_timeout");
  if (timeout.present && timeout.valid && !timeout.value.is_null()) {
    problems.add(timeout.value_at, "execution.walker_timeout",
                 "is not available with execution.backend: mpi (Open MPI cannot stop one rank "
                 "without ending the whole job); remove execution.walker_timeout, or use "
                 "execution.backend: local with execution.persistent_workers: true");
  }
  const Entry& persistent = raw.at("execution.persistent_workers");
  if (persistent.present && persistent.valid && persistent.value == true) {
    problems.add(persistent.value_at, "execution.persistent_workers",
                 "starts worker processes of the local backend; with execution.backend: mpi the "
                 "worker ranks are the persistent workers: remove execution.persistent_workers");
  }
}

// Scheduler arrays (docs/execution.md, "Scheduler arrays"): each array task is already one
// warm worker process, so persistent_workers has nothing to start; walker_timeout is applied
// through the tasks' heartbeats; a task asked for fewer GPUs than its devices count.
void check_scheduler(const RawConfig& raw, Problems& problems) {
  if (!raw.usable("execution.backend")) return;
  const std::string backend = raw.value("execution.backend").get<std::string>();
  if (backend != "slurm" && backend != "pbs" && backend != "torque") return;
  const Entry& persistent = raw.at("execution.persistent_workers");
  if (persistent.present && persistent.valid && persistent.value == true) {
    problems.add(
        persistent.value_at, "execution.persistent_workers",
        "starts worker processes of the local backend; with execution.backend: " + backend +
            " each array task already is one warm worker: remove "
            "execution.persistent_workers (execution.walkers_per_task sets how many "
            "walkers one task runs)");
  }
  const Entry& devices =
      raw.at("execution.devices").present ? raw.at("execution.devices") : raw.at("engine.gpu_ids");
  const Entry& gpus = raw.at("execution.gpus_per_task");
  if (!given(devices) || !gpus.present || !gpus.valid) return;
  const auto list = devices.value.get<std::vector<int>>();
  const int needed = list.empty() ? 0 : *std::max_element(list.begin(), list.end()) + 1;
  const int asked = gpus.value.get<int>();
  if (asked > 0 && asked < needed) {
    problems.add(gpus.value_at, "execution.gpus_per_task",
                 "asks for " + std::to_string(asked) + " GPU(s) per array task, but the devices " +
                     "of each task go up to logical index " + std::to_string(needed - 1) +
                     "; raise execution.gpus_per_task to " + std::to_string(needed) +
                     " or leave it out (then " + std::to_string(needed) + " are requested)");
  }
}

}  // namespace

void check_execution(const RawConfig& raw, Problems& problems) {
  check_mpi(raw, problems);
  check_scheduler(raw, problems);
  const Entry& devices = raw.at("execution.devices");
  const Entry& gpu_ids = raw.at("engine.gpu_ids");
  if (given(devices) && given(gpu_ids)) {
    problems.add(gpu_ids.key_at, "engine.gpu_ids",
                 "engine.gpu_ids and execution.devices are the same setting (Trails-MD's name and "
                 "Trails'); give only one of them");
    return;
  }
  if (given(devices)) check_distinct(devices, "execution.devices", problems);
  if (given(gpu_ids)) check_distinct(gpu_ids, "engine.gpu_ids", problems);
  const Entry& workers = raw.at("execution.workers_per_device");
  if (!workers.present || !workers.valid) return;
  const bool automatic = workers.value == "auto";
  if ((automatic || workers.value.get<int>() > 1) && !given(devices) && !given(gpu_ids)) {
    problems.add(workers.value_at, "execution.workers_per_device",
                 "packs workers onto the devices of execution.devices, which is not set; set "
                 "execution.devices (e.g. [0]) or use spawning.max_workers for unbound threads");
    return;
  }
  // auto measures the walkers of this process's device pool (docs/execution.md, "Walkers per
  // device from measurement"); worker processes, ranks and array tasks take a number.
  const Entry& persistent = raw.at("execution.persistent_workers");
  const bool processes = persistent.present && persistent.valid && persistent.value == true;
  const bool elsewhere =
      raw.usable("execution.backend") && raw.value("execution.backend") != "local";
  if (automatic && (processes || elsewhere)) {
    problems.add(workers.value_at, "execution.workers_per_device",
                 std::string("auto measures walkers in this process's device pool, so it needs ") +
                     "execution.backend: local without execution.persistent_workers; give a "
                     "number of walkers per device (run a campaign with auto first to measure "
                     "it: trails advise shows the choice)");
  }
}

}  // namespace trails::config::detail
