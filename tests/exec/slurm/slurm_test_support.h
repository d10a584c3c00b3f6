// Shared by the tests of test_exec_slurm (the SLURM array executor on the private cluster that
// slurm_main.cpp starts): the array keys of a quick test run, the executor's options over the
// built-in engine, and the info lines the executor logs (the batch summaries say how many
// arrays, elements, reuses and attempts a batch took).
#pragma once

#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <memory>
#include <sstream>
#include <string>

#include "support/builtin_walkers.h"
#include "trails/config/scheduler_config.h"
#include "trails/engines/registry.h"
#include "trails/exec/scheduler/scheduler_executor.h"

namespace trails::exec::testing {

// Polled every 0.2 s, markers waited for 1 s after a job leaves the queue, no retries.
inline config::SchedulerConfig quick_keys() {
  config::SchedulerConfig k;
  k.job_name = "trails-gtest";
  k.walltime = "00:05:00";
  k.poll_interval_s = 0.2;
  k.marker_grace_s = 1.0;
  k.submit_retry_interval_s = 0.1;
  k.max_retries = 0;
  return k;
}

// Arrays of `trails worker --pack` tasks of the binary under test, job files under `jobs`.
inline SchedulerExecutorOptions slurm_options(const std::filesystem::path& jobs) {
  SchedulerExecutorOptions o;
  o.kind = SchedulerKind::Slurm;
  o.keys = quick_keys();
  o.worker_argv = {TRAILS_BINARY, "worker"};
  o.engine_setup = engines::worker_engine_setup(test_support::builtin_config(),
                                                std::filesystem::temp_directory_path());
  o.jobs_dir = jobs;
  o.max_in_flight = 64;
  return o;
}

// Every info line logged while it lives (the default logger is restored after).
class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    auto logger = std::make_shared<spdlog::logger>(
        "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(text_));
    logger->set_level(spdlog::level::info);
    spdlog::set_default_logger(logger);
  }
  ~LogCapture() {
    spdlog::set_default_logger(previous_);
    spdlog::drop("capture");  // the registry would keep it, and its stream, alive
  }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
  std::string text() const { return text_.str(); }

 private:
  std::shared_ptr<spdlog::logger> previous_;
  std::ostringstream text_;
};

}  // namespace trails::exec::testing
