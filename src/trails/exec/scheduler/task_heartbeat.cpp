// Heartbeat files of array tasks and the walker watch behind them (task_heartbeat.h).
#include "trails/exec/scheduler/task_heartbeat.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "trails/core/error.h"
#include "trails/core/fs.h"
#include "trails/exec/local/engine_decorator.h"

namespace trails::exec {
namespace {

namespace fs = std::filesystem;

class WatchedInstance final : public engines::EngineInstance {
 public:
  WatchedInstance(std::unique_ptr<engines::EngineInstance> inner, WalkerWatch& watch)
      : inner_(std::move(inner)), watch_(watch) {}
  engines::SegmentResult run(const engines::SegmentTask& task) override {
    watch_.started(task.task_id);
    // An exception is the executor's to turn into a Failed result; the walker has ended.
    struct End {
      WalkerWatch& w;
      std::int64_t id;
      ~End() { w.ended(id); }
    } end{watch_, task.task_id};
    return inner_->run(task);
  }

 private:
  std::unique_ptr<engines::EngineInstance> inner_;
  WalkerWatch& watch_;
};

class WatchedEngine final : public EngineDecorator {
 public:
  WatchedEngine(const engines::Engine& inner, WalkerWatch& watch)
      : EngineDecorator(inner), watch_(watch) {}

 protected:
  std::unique_ptr<engines::EngineInstance> wrap(std::unique_ptr<engines::EngineInstance> instance,
                                                const engines::Slot& /*slot*/) const override {
    return std::make_unique<WatchedInstance>(std::move(instance), watch_);
  }

 private:
  WalkerWatch& watch_;
};

}  // namespace

fs::path heartbeat_path(const fs::path& results_dir, const fs::path& pack_file) {
  return results_dir / fmt::format("heartbeat_{}.json", pack_file.stem().string());
}

std::optional<Heartbeat> read_heartbeat(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("counter") || !j.contains("running"))
    return std::nullopt;
  try {
    Heartbeat h;
    h.counter = j.at("counter").get<std::uint64_t>();
    h.time_s = j.value("time", 0.0);
    for (const auto& w : j.at("running"))
      h.running.push_back({w.at("task_id").get<std::int64_t>(), w.at("seconds").get<double>()});
    return h;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

std::unique_ptr<engines::Engine> WalkerWatch::watched(const engines::Engine& inner) {
  return std::make_unique<WatchedEngine>(inner, *this);
}

void WalkerWatch::started(std::int64_t task_id) {
  std::lock_guard lock(mutex_);
  running_.emplace_back(task_id, Clock::now());
}

void WalkerWatch::ended(std::int64_t task_id) {
  std::lock_guard lock(mutex_);
  std::erase_if(running_, [&](const auto& r) { return r.first == task_id; });
}

std::vector<RunningWalker> WalkerWatch::running() const {
  std::lock_guard lock(mutex_);
  const auto now = Clock::now();
  std::vector<RunningWalker> out;
  for (const auto& [id, since] : running_)
    out.push_back({id, std::chrono::duration<double>(now - since).count()});
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.task_id < b.task_id; });
  return out;
}

HeartbeatWriter::HeartbeatWriter(fs::path file, std::chrono::milliseconds period,
                                 const WalkerWatch& watch)
    : file_(std::move(file)), period_(period), watch_(watch) {
  beat();
  thread_ = std::thread([this] {
    std::unique_lock lock(mutex_);
    while (!stop_signal_.wait_for(lock, period_, [this] { return stopping_; })) beat();
  });
}

HeartbeatWriter::~HeartbeatWriter() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_signal_.notify_all();
  thread_.join();
  std::error_code ignored;
  fs::remove(file_, ignored);
}

void HeartbeatWriter::beat() {
  nlohmann::json running = nlohmann::json::array();
  for (const RunningWalker& w : watch_.running())
    running.push_back({{"task_id", w.task_id}, {"seconds", w.seconds}});
  const double now =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  const nlohmann::json j = {{"counter", ++counter_}, {"time", now}, {"running", running}};
  try {
    core::write_file_atomic(file_, j.dump() + "\n");
  } catch (const core::Error&) {
    // A full or unreachable filesystem: the next beat tries again; the driver sees the old count.
  }
}

std::optional<std::string> HeartbeatJudge::verdict(const std::optional<Heartbeat>& beat,
                                                   Clock::time_point now) {
  if (beat && beat->counter != counter_) {
    counter_ = beat->counter;
    changed_ = now;
  }
  if (!counter_) return std::nullopt;
  if (now - changed_ >= heartbeat_timeout_) {
    return fmt::format(
        "its heartbeat stopped at count {} {:.0f} s ago (execution.heartbeat_timeout: {} s)",
        *counter_, std::chrono::duration<double>(now - changed_).count(),
        heartbeat_timeout_.count() / 1000.0);
  }
  if (!beat || !walker_timeout_s_) return std::nullopt;
  for (const RunningWalker& w : beat->running) {
    if (w.seconds > *walker_timeout_s_) {
      return fmt::format("task {} has run {:.0f} s, over execution.walker_timeout ({} s)",
                         w.task_id, w.seconds, *walker_timeout_s_);
    }
  }
  return std::nullopt;
}

}  // namespace trails::exec
