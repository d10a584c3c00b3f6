// Heartbeats of scheduler array tasks (docs/execution.md, "Heartbeats of array tasks"). While
// `trails worker --pack` runs, a side thread replaces heartbeat_<pack>.json in the task's results
// directory every period (temporary name, rename): a counter that grows by one each time, the
// node's clock, and the walkers running then with the seconds each has run. The driver never
// compares clocks across hosts: it notes on its own clock when the counter last changed, and a
// RUNNING task whose counter has not changed for execution.heartbeat_timeout is hung (a stopped
// or frozen process, a node that lost its filesystem); a walker that has run longer than
// execution.walker_timeout is over its limit. Either way the driver cancels that array element.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "trails/engines/engine.h"

namespace trails::exec {

struct RunningWalker {
  std::int64_t task_id = 0;
  double seconds = 0;  // how long it has run, on the node's steady clock
};

struct Heartbeat {
  std::uint64_t counter = 0;
  double time_s = 0;  // the node's wall clock (for people reading the file; the driver ignores it)
  std::vector<RunningWalker> running;
};

// RESULTS_DIR/heartbeat_<pack file stem>.json
std::filesystem::path heartbeat_path(const std::filesystem::path& results_dir,
                                     const std::filesystem::path& pack_file);
// std::nullopt when missing or unreadable (not yet written, or torn on a slow filesystem).
std::optional<Heartbeat> read_heartbeat(const std::filesystem::path& file);

// The walkers an executor's instances are running now. watched(inner) is an engine whose
// instances run inner's and note each task's start and end here; `inner` and this watch must
// outlive those instances.
class WalkerWatch {
 public:
  std::unique_ptr<engines::Engine> watched(const engines::Engine& inner);
  std::vector<RunningWalker> running() const;  // in task_id order
  void started(std::int64_t task_id);
  void ended(std::int64_t task_id);

 private:
  using Clock = std::chrono::steady_clock;
  mutable std::mutex mutex_;
  std::vector<std::pair<std::int64_t, Clock::time_point>> running_;
};

// Writes the heartbeat file at once and then every `period` until destroyed; the destructor
// stops the thread and removes the file (a finished task has nothing to watch). A write that
// fails is retried at the next period (the driver then sees an old counter, never a torn file).
class HeartbeatWriter {
 public:
  HeartbeatWriter(std::filesystem::path file, std::chrono::milliseconds period,
                  const WalkerWatch& watch);
  ~HeartbeatWriter();
  HeartbeatWriter(const HeartbeatWriter&) = delete;
  HeartbeatWriter& operator=(const HeartbeatWriter&) = delete;

 private:
  void beat();
  std::filesystem::path file_;
  std::chrono::milliseconds period_;
  const WalkerWatch& watch_;
  std::uint64_t counter_ = 0;
  std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  std::thread thread_;
};

// The driver's reading of one array element's heartbeats, on the driver's steady clock.
class HeartbeatJudge {
 public:
  using Clock = std::chrono::steady_clock;
  HeartbeatJudge(std::chrono::milliseconds heartbeat_timeout,
                 std::optional<double> walker_timeout_s)
      : heartbeat_timeout_(heartbeat_timeout), walker_timeout_s_(walker_timeout_s) {}
  // std::nullopt while the element is fine or has not started (no heartbeat yet: pending in the
  // queue); else why it must be cancelled ("no heartbeat for 60 s", "walker 3 ran 120 s, over
  // execution.walker_timeout 100 s"). `beat` is this poll's reading of the file.
  std::optional<std::string> verdict(const std::optional<Heartbeat>& beat, Clock::time_point now);

 private:
  std::chrono::milliseconds heartbeat_timeout_;
  std::optional<double> walker_timeout_s_;
  std::optional<std::uint64_t> counter_;
  Clock::time_point changed_;
};

}  // namespace trails::exec
