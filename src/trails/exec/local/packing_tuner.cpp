// PackingTuner (packing_tuner.h): a device pool per k, switched between k's on the consumer's
// thread once the pool has drained; the walkers' run times come from a timing wrapper around
// every instance (TimedEngine), so start-up of the pool itself (instances, the first Context's
// kernels) is never counted.
#include "trails/exec/local/packing_tuner.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <limits>
#include <map>
#include <mutex>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "trails/core/error.h"
#include "trails/exec/local/engine_decorator.h"

namespace trails::exec {
namespace {

struct TimedRun {
  int device = 0;
  bool warm_up = false;  // the instance's first walker
  bool ok = false;
  std::int64_t steps = 0;
  double wall_s = 0.0;
};

// One log for the pool running now; cleared when the pool is replaced.
struct RunLog {
  std::mutex mutex;
  std::vector<TimedRun> runs;
};

class TimedInstance final : public engines::EngineInstance {
 public:
  TimedInstance(std::unique_ptr<engines::EngineInstance> inner, int device, RunLog& log)
      : inner_(std::move(inner)), device_(device), log_(log) {}
  engines::SegmentResult run(const engines::SegmentTask& task) override {
    const auto t0 = std::chrono::steady_clock::now();
    engines::SegmentResult r = run_guarded(*inner_, task);
    TimedRun timed{device_, first_, r.ok(), task.steps,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
    first_ = false;
    std::lock_guard lock(log_.mutex);
    log_.runs.push_back(timed);
    return r;
  }

 private:
  std::unique_ptr<engines::EngineInstance> inner_;
  int device_;
  RunLog& log_;
  bool first_ = true;
};

class TimedEngine final : public EngineDecorator {
 public:
  TimedEngine(const engines::Engine& inner, RunLog& log) : EngineDecorator(inner), log_(log) {}

 protected:
  std::unique_ptr<engines::EngineInstance> wrap(std::unique_ptr<engines::EngineInstance> instance,
                                                const engines::Slot& slot) const override {
    return std::make_unique<TimedInstance>(std::move(instance), slot.device.value_or(0), log_);
  }

 private:
  RunLog& log_;
};

// Aggregate steps/s of one device at k walkers: k × (steps / busy seconds) over the measured
// walkers (all of them if none but warm-ups ran), averaged over the devices.
double aggregate_steps_per_s(const std::vector<TimedRun>& runs, int k, int* measured) {
  std::map<int, std::pair<double, double>> per_device;  // device -> (steps, seconds)
  *measured = 0;
  for (const bool warm_ups : {false, true}) {
    for (const TimedRun& r : runs) {
      if (!r.ok || r.warm_up != warm_ups) continue;
      auto& [steps, seconds] = per_device[r.device];
      steps += static_cast<double>(r.steps);
      seconds += r.wall_s;
      ++*measured;
    }
    if (*measured > 0) break;
  }
  double sum = 0.0;
  int devices = 0;
  for (const auto& [device, totals] : per_device) {
    if (totals.second <= 0.0) continue;
    sum += k * totals.first / totals.second;
    ++devices;
  }
  return devices > 0 ? sum / devices : 0.0;
}

class PackingTunerImpl final : public PackingTuner {
 public:
  PackingTunerImpl(const engines::Engine& engine, DevicePlan plan, ExecutionOptions options,
                   PackingTunerOptions tuning)
      : timed_(engine, log_),
        plan_(std::move(plan)),
        options_(std::move(options)),
        tuning_(std::move(tuning)),
        trials_(tuning_.earlier) {
    if (plan_.devices.empty()) {
      throw core::ConfigError(options_.workers_key +
                              ": auto measures walkers per device, so it needs " +
                              options_.devices_key + " (e.g. [0])");
    }
    // The pools' bound: every slot of the largest k busy, one walker queued behind each.
    options_.max_in_flight =
        std::max(options_.max_in_flight,
                 2 * plan_.devices.size() *
                     static_cast<std::size_t>(std::max(1, tuning_.rule.max_workers_per_device)));
    decision_ = decide_packing(trials_, tuning_.rule);
    start_pool(decision_.done ? decision_.chosen : decision_.next);
  }
  ~PackingTunerImpl() override { shutdown(); }

  // Never blocks (max_in_flight is unbounded): walkers wait in the tuner's own queue until the
  // k being measured takes them, and a caller that submits a whole batch before taking results
  // (run_batch) must not wait for a pool switch that only next_completed makes.
  void submit(engines::SegmentTask task) override {
    std::lock_guard lock(mutex_);
    if (stopping_) throw core::InternalError("PackingTuner::submit after shutdown");
    pending_.push_back(std::move(task));
    pump_locked();
  }

  std::optional<engines::SegmentResult> next_completed() override {
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        if (!ready_.empty()) {
          engines::SegmentResult r = std::move(ready_.front());
          ready_.pop_front();
          return r;
        }
        if (outstanding_ == 0) {
          if (!decision_.done && quota_left_ == 0) {
            finish_trial_locked();
            continue;
          }
          if (pending_.empty()) return std::nullopt;
          pump_locked();
          if (outstanding_ == 0) continue;
        }
      }
      // Only this thread replaces pool_, so it stays valid while we wait on it unlocked.
      std::optional<engines::SegmentResult> r = pool_->next_completed();
      std::lock_guard lock(mutex_);
      if (!r && stopping_) return std::nullopt;  // shut down while we waited
      TRAILS_CHECK(r.has_value(), "the packing tuner's pool lost a walker");
      --outstanding_;
      if (!decision_.done) {
        auto task = tasks_.find(r->task_id);
        if (!r->ok() && current_k_ > 1 && is_resource_error(r->error)) {
          if (!trial_failure_) trial_failure_ = r->error;
          quota_left_ = 0;  // nothing more at this k
          withheld_.push_back(std::move(task->second));
          tasks_.erase(task);
          continue;
        }
        if (task != tasks_.end()) tasks_.erase(task);
      }
      ready_.push_back(std::move(*r));
    }
  }

  std::size_t in_flight() const override {
    std::lock_guard lock(mutex_);
    return in_flight_locked();
  }
  std::size_t results_waiting() const override {
    std::lock_guard lock(mutex_);
    return ready_.size() + pool_->results_waiting();
  }
  std::size_t max_in_flight() const override { return std::numeric_limits<std::size_t>::max(); }
  const std::vector<engines::Slot>& slots() const override { return pool_->slots(); }
  void shutdown() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      pending_.clear();
      withheld_.clear();
      ready_.clear();
      outstanding_ = 0;
    }
    if (pool_) pool_->shutdown();
  }

  nlohmann::json record() const override {
    std::lock_guard lock(mutex_);
    nlohmann::json trials = nlohmann::json::array();
    for (const PackingTrial& t : trials_) trials.push_back(to_json(t));
    return {{"trials", trials},
            {"done", decision_.done},
            {"chosen", decision_.chosen},
            {"next", decision_.next},
            {"reason", decision_.reason},
            {"rule",
             {{"max_workers_per_device", tuning_.rule.max_workers_per_device},
              {"min_gain", tuning_.rule.min_gain}}},
            {"measured_per_slot", tuning_.measured_per_slot}};
  }
  int workers_per_device() const override {
    std::lock_guard lock(mutex_);
    return current_k_;
  }

 private:
  std::size_t in_flight_locked() const {
    return pending_.size() + withheld_.size() + static_cast<std::size_t>(outstanding_);
  }

  void start_pool(int k) {
    {
      std::lock_guard lock(log_.mutex);
      log_.runs.clear();
    }
    DevicePlan plan = plan_;
    plan.workers_per_device = k;
    pool_.reset();
    pool_ = make_executor(timed_, plan, options_);
    current_k_ = k;
    trial_failure_.reset();
    quota_left_ = decision_.done ? 0
                                 : static_cast<int>(plan_.devices.size()) * k *
                                       (1 + tuning_.measured_per_slot);
  }

  // Hands queued walkers to the pool: all of them once decided, else up to the trial's quota.
  void pump_locked() {
    while (!pending_.empty() && (decision_.done || quota_left_ > 0)) {
      engines::SegmentTask task = std::move(pending_.front());
      pending_.pop_front();
      if (!decision_.done) {
        --quota_left_;
        tasks_.emplace(task.task_id, task);
      }
      ++outstanding_;
      pool_->submit(std::move(task));
    }
  }

  // The pool has drained after its quota: measure, decide, move to the next pool.
  void finish_trial_locked() {
    PackingTrial trial;
    trial.workers_per_device = current_k_;
    if (trial_failure_) {
      trial.failed = true;
      trial.failure = *trial_failure_;
    } else {
      std::lock_guard lock(log_.mutex);
      trial.steps_per_s = aggregate_steps_per_s(log_.runs, current_k_, &trial.walkers);
    }
    trials_.push_back(trial);
    decision_ = decide_packing(trials_, tuning_.rule);
    spdlog::info("{}: auto: {} per device {}; {}", options_.workers_key, current_k_,
                 trial.failed ? "failed (" + trial.failure + ")"
                              : fmt::format("{:.4g} steps/s ({} walkers measured)",
                                            trial.steps_per_s, trial.walkers),
                 decision_.done ? fmt::format("keeping {}", decision_.chosen)
                                : fmt::format("trying {}", decision_.next));
    const int k = decision_.done ? decision_.chosen : decision_.next;
    try {
      if (k != current_k_) start_pool(k);
      if (decision_.done) quota_left_ = 0;
    } catch (const core::Error& e) {  // the pool for a new k could not be made
      if (decision_.done) throw;
      PackingTrial failed;
      failed.workers_per_device = k;
      failed.failed = true;
      failed.failure = e.what();
      trials_.push_back(failed);
      decision_ = decide_packing(trials_, tuning_.rule);
      start_pool(decision_.chosen);
    }
    // Walkers that hit a resource error run again, first, on the new pool.
    for (auto it = withheld_.rbegin(); it != withheld_.rend(); ++it) {
      pending_.push_front(std::move(*it));
    }
    withheld_.clear();
    pump_locked();
  }

  RunLog log_;
  TimedEngine timed_;
  DevicePlan plan_;
  ExecutionOptions options_;
  PackingTunerOptions tuning_;
  std::vector<PackingTrial> trials_;
  PackingDecision decision_;
  std::unique_ptr<Executor> pool_;
  int current_k_ = 1;
  int quota_left_ = 0;  // walkers still to hand the pool at this k
  std::optional<std::string> trial_failure_;

  mutable std::mutex mutex_;
  std::deque<engines::SegmentTask> pending_;            // submitted, not yet handed to the pool
  std::map<std::int64_t, engines::SegmentTask> tasks_;  // handed over during the search
  std::vector<engines::SegmentTask> withheld_;          // resource failures, to run again
  std::deque<engines::SegmentResult> ready_;
  int outstanding_ = 0;  // handed to the pool, result not yet taken
  bool stopping_ = false;
};

}  // namespace

std::unique_ptr<PackingTuner> make_packing_tuner(const engines::Engine& engine, DevicePlan plan,
                                                 ExecutionOptions options,
                                                 PackingTunerOptions tuning) {
  return std::make_unique<PackingTunerImpl>(engine, std::move(plan), std::move(options),
                                            std::move(tuning));
}

}  // namespace trails::exec
