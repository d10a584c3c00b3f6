// serve_worker (worker.h). Sends come from the main thread (Hello, Result, Error) and the
// heartbeat thread, so every send holds write_mutex: messages never interleave. After the Hello
// one inbox thread does all the receiving, so a Stop is seen while a task runs.
#include "trails/exec/wire/worker.h"

#include <csignal>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "trails/core/error.h"
#include "trails/core/stop_request.h"
#include "trails/engines/host.h"
#include "trails/exec/executor.h"
#include "trails/exec/wire/channel.h"
#include "trails/exec/wire/wire.h"

namespace trails::exec {
namespace {

// Sends a Heartbeat every `interval` while busy() is set, until stopped.
class HeartbeatSender {
 public:
  HeartbeatSender(Channel& channel, std::mutex& write_mutex, std::chrono::milliseconds interval)
      : channel_(channel),
        write_mutex_(write_mutex),
        interval_(interval),
        thread_([this] { loop(); }) {}
  ~HeartbeatSender() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }
  HeartbeatSender(const HeartbeatSender&) = delete;
  HeartbeatSender& operator=(const HeartbeatSender&) = delete;

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
      const std::lock_guard write_lock(write_mutex_);
      // A driver that is gone: the main thread finds out at its next send or receive.
      if (!send_message(channel_, wire::Heartbeat{++sequence})) return;
    }
  }

  Channel& channel_;
  std::mutex& write_mutex_;
  std::chrono::milliseconds interval_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool busy_ = false;
  bool stopping_ = false;
  std::thread thread_;  // last: started once the members it uses exist
};

// Receives every message after the Hello on its own thread. A Stop stops this process at once
// (core::request_stop: the running task ends as the driver's signal ends an in-process walker,
// docs/execution.md, "Stopping"); every other message waits for the main loop's next(). The
// thread ends after the stream's end, a damaged message or a Shutdown.
class Inbox {
 public:
  struct Entry {
    Channel::Receive got = Channel::Receive::Closed;
    wire::Message message;
    std::string damage;  // a damaged message: why (got is Closed)
  };

  explicit Inbox(Channel& channel) : channel_(channel), thread_([this] { loop(); }) {}
  ~Inbox() { thread_.join(); }
  Inbox(const Inbox&) = delete;
  Inbox& operator=(const Inbox&) = delete;

  Entry next() {
    std::unique_lock lock(mutex_);
    arrived_.wait(lock, [this] { return !entries_.empty(); });
    Entry entry = std::move(entries_.front());
    entries_.pop_front();
    return entry;
  }

 private:
  void loop() {
    for (;;) {
      Entry entry;
      try {
        entry.got = receive_message(channel_, &entry.message);
      } catch (const core::Error& e) {
        entry.damage = e.describe();
      }
      const bool message = entry.got == Channel::Receive::Message && entry.damage.empty();
      if (message && wire::kind_of(entry.message) == wire::MessageKind::Stop) {
        core::request_stop(static_cast<int>(std::get<wire::Stop>(entry.message).signal));
        continue;
      }
      // The driver is gone (killed: its end of the stream closed, or its MPI launcher left)
      // while a task may run: end the walker as a stop would, so that its program and
      // everything it started end now instead of running on unwatched.
      if (entry.got == Channel::Receive::Closed) core::request_stop(SIGHUP);
      const bool last = !message || wire::kind_of(entry.message) == wire::MessageKind::Shutdown;
      {
        const std::lock_guard lock(mutex_);
        entries_.push_back(std::move(entry));
      }
      arrived_.notify_one();
      if (last) return;
    }
  }

  Channel& channel_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<Entry> entries_;
  std::thread thread_;  // last: started once the members it uses exist
};

int refuse(Channel& channel, std::mutex& write_mutex, std::int64_t task_id,
           const std::string& what) {
  try {
    const std::lock_guard lock(write_mutex);
    send_message(channel, wire::ErrorReport{task_id, what});  // false: nobody to tell
  } catch (const core::Error&) {
    // the message itself could not be sent (over the size limit): nothing more to say
  }
  return 1;
}

}  // namespace

int serve_worker(Channel& channel, const EngineFactory& make_engine, const std::string& program) {
  std::mutex write_mutex;
  std::unique_ptr<engines::Engine> engine;
  std::unique_ptr<engines::EngineInstance> instance;
  wire::Setup setup;
  try {
    wire::Message first;
    // The driver left before saying anything, or has no work for this worker (an MPI rank
    // whose driver stopped before making its executor).
    if (receive_message(channel, &first) == Channel::Receive::Closed) return 0;
    if (wire::kind_of(first) == wire::MessageKind::Shutdown) return 0;
    if (wire::kind_of(first) != wire::MessageKind::Setup) {
      return refuse(channel, write_mutex, -1,
                    "worker: expected a setup message first, got " +
                        std::string(wire::name(wire::kind_of(first))));
    }
    setup = std::get<wire::Setup>(std::move(first));
    engine = make_engine(setup.engine_setup);
    instance = engine->make_instance(setup.slot);
    const std::lock_guard lock(write_mutex);
    if (!send_message(channel, wire::Hello{program, engine->name(), engines::host_name(),
                                           static_cast<std::int64_t>(::getpid()), setup.slot})) {
      return 1;  // the driver is gone
    }
  } catch (const core::Error& e) {
    return refuse(channel, write_mutex, -1, "worker could not start: " + e.describe());
  } catch (const std::exception& e) {
    return refuse(channel, write_mutex, -1, std::string("worker could not start: ") + e.what());
  }

  HeartbeatSender heartbeat(
      channel, write_mutex,
      std::chrono::milliseconds(std::max<std::int64_t>(1, setup.heartbeat_ms)));
  Inbox inbox(channel);  // after heartbeat: joined first, while the heartbeat still runs
  try {
    for (;;) {
      Inbox::Entry entry = inbox.next();
      if (!entry.damage.empty()) return refuse(channel, write_mutex, -1, "worker: " + entry.damage);
      if (entry.got == Channel::Receive::Closed) return 0;
      const wire::Message& message = entry.message;
      if (wire::kind_of(message) == wire::MessageKind::Shutdown) return 0;
      if (wire::kind_of(message) != wire::MessageKind::Task) {
        return refuse(
            channel, write_mutex, -1,
            "worker: expected a task, got " + std::string(wire::name(wire::kind_of(message))));
      }
      const auto& task = std::get<engines::SegmentTask>(message);
      heartbeat.set_busy(true);
      engines::SegmentResult result = run_guarded(*instance, task);
      heartbeat.set_busy(false);
      const std::lock_guard lock(write_mutex);
      if (!send_message(channel, result)) return 1;  // the driver is gone
    }
  } catch (const core::Error& e) {
    return refuse(channel, write_mutex, -1, "worker: " + e.describe());
  }
}

int serve_worker(int in_fd, int out_fd, const EngineFactory& make_engine,
                 const std::string& program) {
  FdChannel channel(in_fd, out_fd);
  return serve_worker(channel, make_engine, program);
}

}  // namespace trails::exec
