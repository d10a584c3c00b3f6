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
#include "trails/exec/backend.h"
#include "trails/exec/mpi/mpi_world.h"

namespace trails::campaign {
namespace {

// progress.json is rewritten at most this often.
constexpr std::chrono::milliseconds kProgressInterval{250};

bool scheduler_backend(const config::CampaignConfig& c) {
  return config::is_scheduler(config::execution_backend_of(c.execution.backend));
}

}  // namespace

void CampaignDriver::plan_devices() {
  const config::ExecutionSpec spec = config::execution_spec_of(config_);
  execution_ = exec::placement_of(spec);
  device_plan_ = exec::device_plan_of(spec);
  // MPS and MIG of an array task's node are not visible from here.
  if (!device_plan_.devices.empty() && !scheduler_backend(config_))
    mps_ = exec::probe_mps(exec::mps_inputs_from_environment());
}

void CampaignDriver::start_executor() {
  if (config_.execution.workers_per_device == 0) {  // auto: local pool only (config checks)
    exec::PackingTunerOptions tuning;
    tuning.earlier = packing_.earlier();
    auto tuner = exec::make_packing_tuner(*engine_, device_plan_, execution_, tuning);
    packing_.attach(tuner.get(), engine_->system().dt, engine_->system().time_unit);
    executor_ = std::move(tuner);
  } else {
    executor_ = exec::make_executor(
        config::execution_spec_of(config_), *engine_,
        engines::worker_engine_setup(config_.engine_spec(), config_.outdir), device_plan_);
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
  p.target_iterations = options_.target_iterations;
  // The first write comes kProgressInterval into the iteration: short iterations never pay
  // for the file (a rename over it costs milliseconds on ext4), long ones show up in status.
  // The first iteration this process runs writes at once, so that status knows the run's
  // target (a --resume raises it above the last committed state's) however short it is.
  const bool first_of_run = done == 0 && iteration_seconds_.empty();
  if (done == 0) progress_written_ = now;
  if (!first_of_run && now - progress_written_ < kProgressInterval) return;
  progress_written_ = now;
  if (!store::write_progress(config_.outdir, p) && !progress_write_failed_) {
    progress_write_failed_ = true;
    spdlog::warn("cannot write {}; trails status will not show progress inside iterations",
                 store::progress_path(config_.outdir).string());
  }
}

}  // namespace trails::campaign
