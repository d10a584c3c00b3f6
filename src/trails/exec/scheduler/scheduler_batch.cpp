// run_scheduler_batch (scheduler_batch.h): Trails-MD's attempt/chunk loop with Trails'
// additions (docs/execution.md, "Scheduler arrays"): chunks in flight together
// under a driver-side throttle instead of one after another, results streamed as their markers
// appear, results of a resumed run reused, job packing.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <numeric>
#include <thread>

#include "trails/core/error.h"
#include "trails/core/fs.h"
#include "trails/core/subprocess.h"
#include "trails/exec/scheduler/job_files.h"
#include "trails/exec/scheduler/pack_worker.h"
#include "trails/exec/scheduler/scheduler_batch.h"
#include "trails/exec/scheduler/scheduler_commands.h"
#include "trails/exec/scheduler/task_heartbeat.h"

namespace trails::exec::detail {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using engines::SegmentResult;
using engines::SegmentTask;

std::chrono::milliseconds ms(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000.0));
}

// GPUs one array task needs for its device plan: logical indices 0..max.
int gpus_for(const std::vector<int>& devices) {
  return devices.empty() ? 0 : *std::max_element(devices.begin(), devices.end()) + 1;
}

struct Job {
  std::string id;
  std::vector<std::vector<std::size_t>> packs;  // task indices per array element
  std::vector<fs::path> pack_files;             // per element
  std::vector<HeartbeatJudge> judges;           // per element
  std::vector<bool> cancelled;                  // per element: given up as hung or over time
  fs::path log_dir;
  Clock::time_point deadline;
  std::optional<Clock::time_point> left_queue;  // first poll that no longer listed it
};

class Batch {
 public:
  Batch(const SchedulerExecutorOptions& o, std::optional<int> array_limit,
        std::vector<SegmentTask> tasks, const Deliver& deliver, const Pause& pause)
      : o_(o),
        k_(o.keys),
        array_limit_(array_limit),
        tasks_(std::move(tasks)),
        deliver_(deliver),
        pause_(pause),
        dir_(o.jobs_dir / fmt::format("iter_{}", tasks_.front().iteration)),
        done_(tasks_.size(), false),
        has_marker_(tasks_.size(), false),
        log_of_(tasks_.size()) {
    for (const SegmentTask& t : tasks_) digests_.push_back(jobs::task_digest(t));
  }

  void run();

 private:
  bool reuse(std::size_t i);  // a success marker of this very task: deliver it
  std::vector<std::vector<std::size_t>> make_packs(const std::vector<std::size_t>& pending) const;
  std::size_t chunk_cap() const;
  Job submit_chunk(int attempt, int chunk, std::vector<std::vector<std::size_t>> packs);
  std::string submit(const fs::path& script);
  bool still_queued(Job& job);
  void cancel(const Job& job) const;
  void scan(const Job& job);
  void watch(Job& job) const;
  std::chrono::milliseconds heartbeat_timeout() const {
    return ms(k_.heartbeat_timeout_s.value_or(config::SchedulerConfig::kArrayHeartbeatTimeoutS));
  }
  std::size_t unfinished_packs(const Job& job) const;
  bool run_attempt(int attempt, const std::vector<std::size_t>& pending);
  void finish_remaining();

  const SchedulerExecutorOptions& o_;
  const config::SchedulerConfig& k_;
  std::optional<int> array_limit_;
  std::vector<SegmentTask> tasks_;
  const Deliver& deliver_;
  const Pause& pause_;
  fs::path dir_;
  std::vector<std::string> digests_;
  std::vector<bool> done_;           // delivered
  std::vector<bool> has_marker_;     // a marker of this attempt exists (success or not)
  std::vector<std::string> log_of_;  // the array element log of the task's last attempt
  int submissions_ = 0;
  std::size_t elements_ = 0;  // array elements submitted, all attempts
};

bool Batch::reuse(std::size_t i) {
  const std::int64_t id = tasks_[i].task_id;
  const std::optional<jobs::Marker> m = jobs::read_marker(dir_, id);
  if (!m || !m->success || m->digest != digests_[i] || m->task_id != id) return false;
  std::optional<SegmentResult> result = jobs::read_result(dir_, id);
  if (!result) return false;
  done_[i] = true;
  deliver_(std::move(*result));
  return true;
}

std::vector<std::vector<std::size_t>> Batch::make_packs(
    const std::vector<std::size_t>& pending) const {
  std::vector<std::vector<std::size_t>> packs;
  const auto per = static_cast<std::size_t>(std::max(1, k_.walkers_per_task));
  for (std::size_t at = 0; at < pending.size(); at += per) {
    packs.emplace_back(
        pending.begin() + static_cast<std::ptrdiff_t>(at),
        pending.begin() + static_cast<std::ptrdiff_t>(std::min(at + per, pending.size())));
  }
  return packs;
}

// Elements per array: the scheduler's limit, and on PBS/Torque (no %N) max_in_flight too.
std::size_t Batch::chunk_cap() const {
  std::size_t cap = array_limit_ ? static_cast<std::size_t>(*array_limit_) : SIZE_MAX;
  if (o_.kind != SchedulerKind::Slurm && k_.max_in_flight)
    cap = std::min(cap, static_cast<std::size_t>(*k_.max_in_flight));
  return std::max<std::size_t>(cap, 1);
}

std::string Batch::submit(const fs::path& script) {
  const std::vector<std::string> argv = submit_command(o_.kind, script.string());
  core::ProcessOptions p;
  p.timeout = ms(k_.submit_timeout_s);
  for (int attempt = 0;; ++attempt) {
    core::ProcessResult r;
    try {
      r = core::run_process(argv, p);
    } catch (const core::InputError& e) {
      throw core::EngineError(
          fmt::format("execution.backend: {}: {}; is the scheduler's client "
                      "installed and on PATH?",
                      name(o_.kind), e.describe()));
    }
    ++submissions_;
    if (r.status.ok()) {
      if (const std::optional<std::string> id = parse_job_id(o_.kind, r.stdout_text)) return *id;
      throw core::EngineError(
          fmt::format("{} printed no job id (stdout: '{}')", argv.front(), r.stdout_text));
    }
    const std::string message = r.stderr_tail + r.stdout_text;
    const bool transient = r.status.timed_out || transient_submit_error(message);
    if (!transient || attempt >= k_.submit_retry_limit) {
      throw core::EngineError(
          core::describe_failure(argv, r, p.timeout) +
          (transient
               ? fmt::format("\n(still failing after {} retries: execution.submit_retry_limit)",
                             attempt)
               : std::string()));
    }
    spdlog::warn("{} failed for a passing reason, retry {} of {} in {} s: {}", argv.front(),
                 attempt + 1, k_.submit_retry_limit, k_.submit_retry_interval_s,
                 message.substr(0, message.find('\n')));
    if (!pause_(ms(k_.submit_retry_interval_s)))
      throw core::EngineError("stopped while submitting");
  }
}

Job Batch::submit_chunk(int attempt, int chunk, std::vector<std::vector<std::size_t>> packs) {
  const std::string tag = fmt::format("a{}_c{}", attempt, chunk);
  Job job;
  job.log_dir = dir_ / ("logs_" + tag);
  fs::create_directories(job.log_dir);
  std::string manifest;
  for (std::size_t e = 0; e < packs.size(); ++e) {
    jobs::Pack pack;
    pack.setup = wire::Setup{engines::Slot{0, std::nullopt, 0}, 0, o_.engine_setup};
    for (const std::size_t i : packs[e]) pack.tasks.push_back(tasks_[i]);
    const fs::path file = dir_ / fmt::format("pack_{}_{}.trwf", tag, e);
    jobs::write_pack(file, pack);
    manifest += file.string() + "\n";
    job.pack_files.push_back(file);
    job.judges.emplace_back(heartbeat_timeout(), o_.walker_timeout_s);
  }
  job.cancelled.assign(packs.size(), false);
  ArrayJob array;
  array.elements = static_cast<int>(packs.size());
  if (o_.kind == SchedulerKind::Slurm && k_.max_in_flight) array.throttle = *k_.max_in_flight;
  array.manifest = dir_ / fmt::format("manifest_{}.txt", tag);
  array.results_dir = dir_;
  array.log_dir = job.log_dir;
  array.worker_argv = o_.worker_argv;
  for (std::string& arg : pack_worker_arguments(
           o_.placement, heartbeat_timeout() / config::SchedulerConfig::kHeartbeatsPerTimeout))
    array.worker_argv.push_back(std::move(arg));
  array.gpus = gpus_for(o_.placement.devices);
  core::write_file_atomic(array.manifest, manifest);
  const fs::path script = dir_ / fmt::format("submit_{}.sh", tag);
  core::write_file_atomic(script, render_job_script(o_.kind, k_, array));
  job.id = submit(script);
  for (std::size_t e = 0; e < packs.size(); ++e) {
    for (const std::size_t i : packs[e])
      log_of_[i] = (job.log_dir / fmt::format("{}_{}.err", job.id, e)).string();
  }
  elements_ += packs.size();
  job.packs = std::move(packs);
  // Trails-MD's ceiling: wait_timeout, else twice the walltime plus an hour.
  const std::optional<double> wall = walltime_seconds(k_.walltime);
  const std::optional<double> wait = k_.wait_timeout_s ? k_.wait_timeout_s
                                     : wall            ? std::optional(2 * *wall + 3600)
                                                       : std::nullopt;
  job.deadline = wait ? Clock::now() + ms(*wait) : Clock::time_point::max();
  spdlog::debug("submitted {} job {}: {} array elements", name(o_.kind), job.id, job.packs.size());
  return job;
}

void Batch::scan(const Job& job) {
  for (const auto& pack : job.packs) {
    for (const std::size_t i : pack) {
      if (has_marker_[i]) continue;
      const std::optional<jobs::Marker> m = jobs::read_marker(dir_, tasks_[i].task_id);
      if (!m || m->digest != digests_[i]) continue;
      has_marker_[i] = true;
      if (m->success && !done_[i]) {
        std::optional<SegmentResult> result = jobs::read_result(dir_, tasks_[i].task_id);
        if (!result) {
          has_marker_[i] = false;  // a result copied from elsewhere not yet whole: look again
          continue;
        }
        done_[i] = true;
        deliver_(std::move(*result));
      }
    }
  }
}

std::size_t Batch::unfinished_packs(const Job& job) const {
  std::size_t n = 0;
  for (std::size_t e = 0; e < job.packs.size(); ++e) {
    const auto& p = job.packs[e];
    if (!job.cancelled[e] &&
        std::any_of(p.begin(), p.end(), [&](std::size_t i) { return !has_marker_[i]; }))
      ++n;
  }
  return n;
}

// Heartbeats (task_heartbeat.h): an element that stopped beating or whose walker passed
// walker_timeout is cancelled alone; its walkers without a marker run again (max_retries).
void Batch::watch(Job& job) const {
  const auto now = HeartbeatJudge::Clock::now();
  for (std::size_t e = 0; e < job.packs.size(); ++e) {
    const auto& p = job.packs[e];
    if (job.cancelled[e] ||
        std::all_of(p.begin(), p.end(), [&](std::size_t i) { return has_marker_[i]; }))
      continue;
    const auto why =
        job.judges[e].verdict(read_heartbeat(heartbeat_path(dir_, job.pack_files[e])), now);
    if (!why) continue;
    std::vector<std::int64_t> walkers;
    for (const std::size_t i : p) walkers.push_back(tasks_[i].walker);
    spdlog::warn("{} job {} element {} (walkers {}): {}; cancelling that element", name(o_.kind),
                 job.id, e, fmt::join(walkers, ","), *why);
    const std::vector<std::string> argv = cancel_element_command(o_.kind, job.id, e);
    try {
      const core::ProcessResult r = core::run_process(argv);
      if (!r.status.ok()) spdlog::warn("{}: {}", fmt::join(argv, " "), r.stderr_tail);
    } catch (const core::Error& error) {
      spdlog::warn("{}: {}", fmt::join(argv, " "), error.describe());
    }
    job.cancelled[e] = true;
  }
}

bool Batch::still_queued(Job& job) {
  core::ProcessOptions p;
  p.timeout = ms(k_.submit_timeout_s);
  const std::vector<std::string> argv = status_command(o_.kind, job.id);
  core::ProcessResult r;
  try {
    r = core::run_process(argv, p);
  } catch (const core::InputError& e) {
    throw core::EngineError(fmt::format("execution.backend: {}: {}", name(o_.kind), e.describe()));
  }
  if (r.status.ok()) return job_active(o_.kind, job.id, r.stdout_text);
  // A job the scheduler no longer knows makes squeue/qstat fail: it is not queued. Any other
  // failure (a timeout, a controller restarting) says nothing: poll again (wait_timeout bounds it).
  if (!r.status.timed_out && job_unknown(o_.kind, r.stderr_tail + r.stdout_text)) return false;
  spdlog::warn("{} could not tell whether job {} runs ({}); polling again", argv.front(), job.id,
               r.status.describe(p.timeout));
  return true;
}

void Batch::cancel(const Job& job) const {
  try {
    const core::ProcessResult r = core::run_process(cancel_command(o_.kind, job.id));
    if (!r.status.ok()) spdlog::warn("could not cancel job {}: {}", job.id, r.stderr_tail);
  } catch (const core::Error& e) {
    spdlog::warn("could not cancel job {}: {}", job.id, e.describe());
  }
}

bool Batch::run_attempt(int attempt, const std::vector<std::size_t>& pending) {
  for (const std::size_t i : pending) {
    jobs::remove_result(dir_, tasks_[i].task_id);  // a failed result of an earlier attempt
    has_marker_[i] = false;
  }
  std::vector<std::vector<std::size_t>> packs = make_packs(pending);
  const std::size_t cap = chunk_cap();
  std::vector<std::vector<std::vector<std::size_t>>> chunks;
  for (std::size_t at = 0; at < packs.size(); at += cap) {
    chunks.emplace_back(
        packs.begin() + static_cast<std::ptrdiff_t>(at),
        packs.begin() + static_cast<std::ptrdiff_t>(std::min(at + cap, packs.size())));
  }
  // Elements in flight at once; SIZE_MAX: no limit.
  const std::size_t limit =
      k_.max_in_flight ? static_cast<std::size_t>(*k_.max_in_flight) : SIZE_MAX;
  std::vector<Job> active;
  std::size_t next = 0;
  while (next < chunks.size() || !active.empty()) {
    // Driver-side throttle: a chunk goes out when its elements fit beside the unfinished ones.
    std::size_t outstanding = 0;
    for (const Job& j : active) outstanding += unfinished_packs(j);
    while (next < chunks.size() && (active.empty() || outstanding + chunks[next].size() <= limit)) {
      outstanding += chunks[next].size();
      active.push_back(submit_chunk(attempt, static_cast<int>(next), std::move(chunks[next])));
      ++next;
    }
    const bool grace = std::any_of(active.begin(), active.end(),
                                   [](const Job& j) { return j.left_queue.has_value(); });
    if (!pause_(ms(grace ? std::min(k_.poll_interval_s, 5.0) : k_.poll_interval_s))) {
      // Stopping: the walkers that finished are delivered (a stopped campaign keeps them),
      // then the rest is cancelled.
      for (Job& j : active) scan(j);
      for (const Job& j : active) cancel(j);
      return false;
    }
    for (auto it = active.begin(); it != active.end();) {
      scan(*it);
      watch(*it);
      const auto now = Clock::now();
      bool over = unfinished_packs(*it) == 0;
      if (!over && now > it->deadline) {
        spdlog::warn("{} job {} passed its wait ceiling (execution.wait_timeout); cancelling it",
                     name(o_.kind), it->id);
        cancel(*it);
        over = true;
      } else if (!over && !it->left_queue && !still_queued(*it)) {
        it->left_queue = now;  // markers may still be on their way (a shared filesystem)
      }
      if (!over && it->left_queue && now - *it->left_queue >= ms(k_.marker_grace_s)) over = true;
      it = over ? active.erase(it) : it + 1;
    }
  }
  return true;
}

void Batch::finish_remaining() {
  for (std::size_t i = 0; i < tasks_.size(); ++i) {
    if (done_[i]) continue;
    const SegmentTask& t = tasks_[i];
    std::optional<SegmentResult> result;
    const std::optional<jobs::Marker> m = jobs::read_marker(dir_, t.task_id);
    if (m && m->digest == digests_[i]) result = jobs::read_result(dir_, t.task_id);
    if (!result) {
      result.emplace();
      result->task_id = t.task_id;
      result->status = engines::SegmentStatus::Failed;
      result->error = fmt::format(
          "walker {} of iteration {}: no result after {} attempt(s) of the {} array "
          "(execution.max_retries: {}); the array task's log: {}",
          t.walker, t.iteration, k_.max_retries + 1, name(o_.kind), k_.max_retries, log_of_[i]);
    }
    done_[i] = true;
    deliver_(std::move(*result));
  }
}

void Batch::run() {
  fs::create_directories(dir_);
  std::size_t reused = 0;
  for (std::size_t i = 0; i < tasks_.size(); ++i) reused += reuse(i) ? 1 : 0;
  if (reused > 0) {
    spdlog::info("{}: {} of {} walkers of iteration {} already have results in {}; not submitted",
                 name(o_.kind), reused, tasks_.size(), tasks_.front().iteration, dir_.string());
  }
  int attempts = 0;
  for (int attempt = 0; attempt <= k_.max_retries; ++attempt) {
    std::vector<std::size_t> pending;
    for (std::size_t i = 0; i < tasks_.size(); ++i)
      if (!done_[i]) pending.push_back(i);
    if (pending.empty()) break;
    if (attempt > 0) {
      spdlog::warn("{}: {} walker(s) of iteration {} have no success marker; attempt {} of {}",
                   name(o_.kind), pending.size(), tasks_.front().iteration, attempt + 1,
                   k_.max_retries + 1);
    }
    ++attempts;
    if (!run_attempt(attempt, pending)) return;  // stopping: nothing more is delivered
  }
  finish_remaining();
  spdlog::info(
      "{}: iteration {}: {} walkers in {} array task(s), {} reused, {} attempt(s), {} "
      "submission(s)",
      name(o_.kind), tasks_.front().iteration, tasks_.size(), elements_, reused, attempts,
      submissions_);
  // Every walker succeeded: the job files have served (logs of failures are kept).
  if (std::all_of(tasks_.begin(), tasks_.end(), [&](const SegmentTask& t) {
        const auto m = jobs::read_marker(dir_, t.task_id);
        return m && m->success;
      })) {
    // An element's marker is written before its job step ends, so the scheduler may still be
    // closing that element's log in the folder, and a pass that meets a file appearing fails
    // ("directory not empty"): try again for up to 5 s (docs/execution.md, "Scheduler arrays").
    for (int pass = 0; pass < 50 && fs::exists(dir_); ++pass) {
      if (pass > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::error_code ignored;
      fs::remove_all(dir_, ignored);
    }
  }
}

}  // namespace

void run_scheduler_batch(const SchedulerExecutorOptions& options, std::optional<int> array_limit,
                         std::vector<SegmentTask> tasks, const Deliver& deliver,
                         const Pause& pause) {
  if (tasks.empty()) return;
  Batch(options, array_limit, std::move(tasks), deliver, pause).run();
}

}  // namespace trails::exec::detail
