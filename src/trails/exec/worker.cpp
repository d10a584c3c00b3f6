// serve_worker (worker.h). Writes to out_fd come from the main thread (Hello, Result, Error)
// and the heartbeat thread, so every write holds write_mutex: frames never interleave.
#include "trails/exec/worker.h"

#include <unistd.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "trails/core/error.h"
#include "trails/exec/executor.h"
#include "trails/exec/wire.h"

namespace trails::exec {
namespace {

std::string host_name() {
  std::array<char, 256> buffer{};
  if (::gethostname(buffer.data(), buffer.size() - 1) != 0) return "unknown";
  return buffer.data();
}

// Sends a Heartbeat every `interval` while busy() is set, until stopped.
class Heartbeat {
 public:
  Heartbeat(int fd, std::mutex& write_mutex, std::chrono::milliseconds interval)
      : fd_(fd), write_mutex_(write_mutex), interval_(interval), thread_([this] { loop(); }) {}
  ~Heartbeat() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  Heartbeat(const Heartbeat&) = delete;
  Heartbeat& operator=(const Heartbeat&) = delete;

  void set_busy(bool busy) {
    std::lock_guard lock(mutex_);
    busy_ = busy;
  }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    std::int64_t sequence = 0;
    while (!wake_.wait_for(lock, interval_, [this] { return stopping_; })) {
      if (!busy_) continue;
      try {
        const std::lock_guard write_lock(write_mutex_);
        wire::write_message(fd_, wire::Heartbeat{++sequence});
      } catch (const core::Error&) {
        return;  // the driver is gone; the main thread finds out at its next write or read
      }
    }
  }

  int fd_;
  std::mutex& write_mutex_;
  std::chrono::milliseconds interval_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool busy_ = false;
  bool stopping_ = false;
  std::thread thread_;  // last: started once the members it uses exist
};

int refuse(int out_fd, std::mutex& write_mutex, std::int64_t task_id, const std::string& what) {
  try {
    const std::lock_guard lock(write_mutex);
    wire::write_message(out_fd, wire::ErrorReport{task_id, what});
  } catch (const core::Error&) {
    // the driver is gone: nobody to tell
  }
  return 1;
}

}  // namespace

int serve_worker(int in_fd, int out_fd, const EngineFactory& make_engine,
                 const std::string& program) {
  std::mutex write_mutex;
  std::unique_ptr<engines::Engine> engine;
  std::unique_ptr<engines::EngineInstance> instance;
  wire::Setup setup;
  try {
    std::optional<wire::Message> first = wire::read_message(in_fd);
    if (!first) return 0;  // the driver left before saying anything
    if (wire::kind_of(*first) != wire::MessageKind::Setup) {
      return refuse(out_fd, write_mutex, -1,
                    "worker: expected a setup message first, got " +
                        std::string(wire::name(wire::kind_of(*first))));
    }
    setup = std::get<wire::Setup>(std::move(*first));
    engine = make_engine(setup.engine_setup);
    instance = engine->make_instance(setup.slot);
    const std::lock_guard lock(write_mutex);
    wire::write_message(out_fd, wire::Hello{program, engine->name(), host_name(),
                                            static_cast<std::int64_t>(::getpid()), setup.slot});
  } catch (const core::Error& e) {
    return refuse(out_fd, write_mutex, -1, "worker could not start: " + e.describe());
  } catch (const std::exception& e) {
    return refuse(out_fd, write_mutex, -1, std::string("worker could not start: ") + e.what());
  }

  Heartbeat heartbeat(out_fd, write_mutex,
                      std::chrono::milliseconds(std::max<std::int64_t>(1, setup.heartbeat_ms)));
  try {
    for (;;) {
      std::optional<wire::Message> message = wire::read_message(in_fd);
      if (!message || wire::kind_of(*message) == wire::MessageKind::Shutdown) return 0;
      if (wire::kind_of(*message) != wire::MessageKind::Task) {
        return refuse(
            out_fd, write_mutex, -1,
            "worker: expected a task, got " + std::string(wire::name(wire::kind_of(*message))));
      }
      const auto& task = std::get<engines::SegmentTask>(*message);
      heartbeat.set_busy(true);
      engines::SegmentResult result = run_guarded(*instance, task);
      heartbeat.set_busy(false);
      const std::lock_guard lock(write_mutex);
      wire::write_message(out_fd, result);
    }
  } catch (const core::Error& e) {
    return refuse(out_fd, write_mutex, -1, "worker: " + e.describe());
  }
}

}  // namespace trails::exec
