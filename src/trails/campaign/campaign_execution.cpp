// Where the campaign's segments run (docs/execution.md, "Devices and packing"): the device
// plan from execution.devices / engine.gpu_ids, the one executor factory, the MPS/MIG record,
// and progress inside an iteration (the progress sink and progress.json).
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "trails/campaign/campaign_driver.h"
#include "trails/core/error.h"
#include "trails/engines/registry.h"
#include "trails/exec/mpi_executor.h"
#include "trails/exec/mpi_world.h"
#include "trails/exec/process_executor.h"
#include "trails/exec/scheduler_executor.h"

namespace trails::campaign {
namespace {

// progress.json is rewritten at most this often.
constexpr std::chrono::milliseconds kProgressInterval{250};

// execution.persistent_workers: one `trails worker` process per slot (the device plan's slots,
// or spawning.max_workers unbound ones), a whole iteration in flight.
std::unique_ptr<exec::Executor> make_worker_executor(const config::CampaignConfig& c,
                                                     const exec::DevicePlan& plan,
                                                     exec::BindingCheck binding) {
  const auto bound = static_cast<std::size_t>(c.spawning.walker);
  exec::WorkerOptions workers;
  workers.argv = {std::filesystem::read_symlink("/proc/self/exe").string(), "worker"};
  workers.engine_setup = engines::worker_engine_setup(c.engine_spec(), c.outdir);
  workers.binding_check = binding;
  if (c.execution.walker_timeout) {
    workers.walker_timeout = std::chrono::milliseconds(
        static_cast<std::int64_t>(std::ceil(*c.execution.walker_timeout * 1000.0)));
  }
  if (!plan.devices.empty())
    return exec::make_process_executor(workers, exec::slots_for(plan), bound);
  return exec::make_process_executor(workers, c.spawning.max_workers, bound);
}

// execution.backend: mpi: the worker ranks of this MPI job, one slot each (exec::mpi_slots),
// spawning.max_workers unused. `trails run` made the world and refused a launch without ranks.
std::unique_ptr<exec::Executor> make_mpi_worker_executor(const config::CampaignConfig& c,
                                                         const exec::DevicePlan& plan,
                                                         const exec::ExecutionOptions& keys,
                                                         exec::BindingCheck binding) {
  exec::MpiWorld* world = exec::MpiWorld::current();
  if (world == nullptr) {
    throw core::ConfigError(c.config_file.string() +
                            ": execution.backend: mpi runs under an MPI launcher; start it as "
                            "mpirun -n K trails run CONFIG (K >= 2)");
  }
  exec::WorkerOptions workers;
  workers.engine_setup = engines::worker_engine_setup(c.engine_spec(), c.outdir);
  workers.binding_check = binding;
  // execution.heartbeat_timeout: a rank silent this long ends the job (docs/execution.md).
  if (const auto t = c.execution.scheduler.heartbeat_timeout_s) {
    workers.heartbeat_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(*t * 1000.0));
    workers.heartbeat_interval =
        std::min(workers.heartbeat_interval, workers.heartbeat_timeout / 5);
  }
  return exec::make_mpi_executor(*world, workers, exec::mpi_slots(world->hosts(), plan, keys),
                                 static_cast<std::size_t>(c.spawning.walker));
}

// execution.backend: slurm | pbs | torque: arrays of `trails worker --pack` tasks whose job
// files live in RUN_DIR/jobs (docs/execution.md, "Scheduler arrays"); a whole iteration is one
// batch. With execution.devices each array task packs its walkers on its own devices (the ones
// the scheduler gave it), else they run back to back (Trails-MD row 56: no device binding).
std::unique_ptr<exec::Executor> make_array_executor(const config::CampaignConfig& c,
                                                    const exec::ExecutionOptions& placement) {
  exec::SchedulerExecutorOptions o;
  o.kind = exec::scheduler_kind(c.execution.backend);
  o.keys = c.execution.scheduler;
  o.worker_argv = {std::filesystem::read_symlink("/proc/self/exe").string(), "worker"};
  o.engine_setup = engines::worker_engine_setup(c.engine_spec(), c.outdir);
  o.jobs_dir = c.outdir / "jobs";
  o.max_in_flight = static_cast<std::size_t>(c.spawning.walker);
  o.placement = placement;
  o.walker_timeout_s = c.execution.walker_timeout;
  return exec::make_scheduler_executor(o);
}

bool scheduler_backend(const config::CampaignConfig& c) {
  return c.execution.backend != "local" && c.execution.backend != "mpi";
}

}  // namespace

exec::VisibleDevices visible_devices_of(const config::CampaignConfig& config) {
  return scheduler_backend(config) ? exec::VisibleDevices{} : exec::inherited_visible_devices();
}

exec::ExecutionOptions execution_options(const config::CampaignConfig& config) {
  exec::ExecutionOptions o;
  o.devices = config.execution.devices;
  // auto (0) starts at 1 walker per device; the packing tuner makes its own plans.
  o.workers_per_device = std::max(1, config.execution.workers_per_device);
  o.max_workers = config.spawning.max_workers;
  // A whole iteration in flight: the driver submits every walker at once (docs/execution.md).
  o.max_in_flight = static_cast<std::size_t>(config.spawning.walker);
  o.binding_check = exec::binding_check_of(config.execution.binding_check);
  o.devices_key = config.execution.devices_key;
  return o;
}

void CampaignDriver::plan_devices() {
  execution_ = execution_options(config_);
  device_plan_ = exec::resolve_devices(execution_, visible_devices_of(config_));
  // MPS and MIG of an array task's node are not visible from here.
  if (!device_plan_.devices.empty() && !scheduler_backend(config_))
    mps_ = exec::probe_mps(exec::mps_inputs_from_environment());
}

void CampaignDriver::start_executor() {
  // The binding check of out-of-process slots, as make_executor applies it to threads.
  const exec::BindingCheck binding =
      engine_->capabilities().uses_devices && !device_plan_.devices.empty()
          ? execution_.binding_check
          : exec::BindingCheck::Off;
  if (config_.execution.backend == "mpi") {
    executor_ = make_mpi_worker_executor(config_, device_plan_, execution_, binding);
  } else if (scheduler_backend(config_)) {
    executor_ = make_array_executor(config_, execution_);
  } else if (config_.execution.persistent_workers) {
    executor_ = make_worker_executor(config_, device_plan_, binding);
  } else if (config_.execution.workers_per_device == 0) {
    exec::PackingTunerOptions tuning;
    tuning.earlier = packing_earlier_;
    auto tuner = exec::make_packing_tuner(*engine_, device_plan_, execution_, tuning);
    packing_ = tuner.get();
    executor_ = std::move(tuner);
  } else {
    executor_ = exec::make_executor(*engine_, device_plan_, execution_);
  }
  for (const auto& warning : exec::packing_warnings(
           device_plan_, engine_->capabilities().uses_devices, mps_, execution_.workers_key)) {
    if (!scheduler_backend(config_)) spdlog::warn("{}", warning);  // not the task's node
  }
  if (const auto line = devices_banner()) spdlog::info("placement: {}", *line);
}

nlohmann::json CampaignDriver::execution_record() const {
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : device_plan_.devices) {
    devices.push_back({{"logical", d.logical}, {"physical", d.physical}, {"mig", d.mig}});
  }
  nlohmann::json record = {
      {"backend", config_.execution.backend},
      {"devices", devices},
      {"workers_per_device", config_.execution.workers_per_device == 0
                                 ? nlohmann::json("auto")
                                 : nlohmann::json(device_plan_.workers_per_device)},
      {"cuda_visible_devices",
       device_plan_.visible.set ? nlohmann::json(device_plan_.visible.tokens) : nlohmann::json()},
      {"mps_daemon", mps_.daemon},
      {"mps_evidence", mps_.evidence},
      {"engine_uses_devices", engine_->capabilities().uses_devices}};
  // What trails advise needs of a scheduler run (docs/advise.md, "Job packing").
  if (scheduler_backend(config_)) {
    const auto& k = config_.execution.scheduler;
    record["scheduler"] = {
        {"walkers_per_task", k.walkers_per_task},
        {"max_in_flight", k.max_in_flight ? nlohmann::json(*k.max_in_flight) : nlohmann::json()}};
  }
  // Where the worker ranks ran, rank 1 first (the slots they served: docs/execution.md).
  if (const exec::MpiWorld* world = exec::MpiWorld::current(); world != nullptr) {
    record["mpi_worker_hosts"] =
        std::vector<std::string>(world->hosts().begin() + 1, world->hosts().end());
  }
  return record;
}

std::optional<std::string> CampaignDriver::devices_banner() const {
  if (device_plan_.devices.empty()) return std::nullopt;
  if (scheduler_backend(config_)) return device_plan_.describe() + " in each array task";
  if (config_.execution.workers_per_device == 0) {
    const std::string plan = device_plan_.describe();
    return fmt::format("{} x auto worker(s) per device (measured: 1, 2, 4, ... up to 8); {}",
                       plan.substr(0, plan.find(" x ")),
                       exec::describe_mps_mig(mps_, device_plan_));
  }
  return fmt::format("{}; {}", device_plan_.describe(), exec::describe_mps_mig(mps_, device_plan_));
}

void CampaignDriver::report_walkers(std::int64_t iteration, int done, int failed,
                                    IterationState::Clock::time_point t0) {
  const auto now = IterationState::Clock::now();
  store::WalkerProgress p;
  p.iteration = iteration;
  p.walkers = config_.spawning.walker;
  p.done = done;
  p.failed = failed;
  // Every slot takes the next queued walker as soon as it frees, so min(unfinished, slots) run.
  p.running = std::min(p.walkers - done, executor_->workers());
  p.queued = p.walkers - done - p.running;
  p.elapsed_s = std::chrono::duration<double>(now - t0).count();
  p.eta_s = store::iteration_eta(p.elapsed_s, done, p.walkers);
  progress_.walkers(p);
  // The first write comes kProgressInterval into the iteration: short iterations never pay
  // for the file (a rename over it costs milliseconds on ext4), long ones show up in status.
  if (done == 0) progress_written_ = now;
  if (now - progress_written_ < kProgressInterval) return;
  progress_written_ = now;
  if (!store::write_progress(config_.outdir, p) && !progress_write_failed_) {
    progress_write_failed_ = true;
    spdlog::warn("cannot write {}; trails status will not show progress inside iterations",
                 store::progress_path(config_.outdir).string());
  }
}

}  // namespace trails::campaign
