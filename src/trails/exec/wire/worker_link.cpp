// greet / exchange (worker_link.h): the protocol steps of docs/execution.md, "Persistent worker
// processes", shared by every out-of-process executor.
#include "trails/exec/wire/worker_link.h"

#include <fmt/format.h>

#include <algorithm>

#include "trails/core/error.h"
#include "trails/core/signals.h"

namespace trails::exec {
namespace {

using Clock = Channel::Clock;
using engines::SegmentResult;
using engines::SegmentTask;

std::string kind_text(const wire::Message& message) {
  return std::string(wire::name(wire::kind_of(message)));
}

}  // namespace

std::string seconds_text(std::chrono::milliseconds d) {
  return fmt::format("{:g} s", static_cast<double>(d.count()) / 1000.0);
}

std::optional<Lost> greet(Channel& channel, const wire::Setup& setup,
                          std::chrono::milliseconds start_timeout) {
  const Clock::time_point deadline = Clock::now() + start_timeout;
  if (!send_message(channel, setup, deadline)) return Lost{"ended before its hello", true};
  wire::Message reply;
  switch (receive_message(channel, &reply, deadline)) {
    case Channel::Receive::Closed:
      return Lost{"ended before its hello", true};
    case Channel::Receive::TimedOut:
      return Lost{"sent no hello within " + seconds_text(start_timeout), false};
    case Channel::Receive::Message:
      break;
  }
  switch (wire::kind_of(reply)) {
    case wire::MessageKind::Hello: {
      const auto& hello = std::get<wire::Hello>(reply);
      if (hello.slot == setup.slot) return std::nullopt;
      return Lost{"answered for " + engines::describe(hello.slot), false};
    }
    case wire::MessageKind::Error:
      return Lost{"failed: " + std::get<wire::ErrorReport>(reply).message, false};
    default:
      return Lost{"sent a " + kind_text(reply) + " instead of hello", false};
  }
}

std::variant<SegmentResult, Lost> exchange(Channel& channel, const SegmentTask& task,
                                           const ExchangeLimits& limits,
                                           const std::string& worker) {
  if (!send_message(channel, task, Clock::now() + limits.heartbeat_timeout)) {
    return Lost{worker + " stopped reading tasks", true};
  }
  std::optional<Clock::time_point> deadline;
  if (limits.walker_timeout) deadline = Clock::now() + *limits.walker_timeout;
  // A stop signal is looked for this often while the worker runs (the handler only sets a flag).
  constexpr std::chrono::milliseconds kStopPoll{100};
  std::optional<Clock::time_point> stop_by;  // set once the Stop is sent
  Clock::time_point silent_at = Clock::now() + limits.heartbeat_timeout;
  for (;;) {
    if (!stop_by && core::stop_requested()) {
      stop_by = Clock::now() + limits.stop_grace;
      // Not sent (the worker stopped reading): stop_by decides all the same.
      send_message(channel, wire::Stop{core::stop_signal()}, *stop_by);
    }
    Clock::time_point until = std::min(silent_at, Clock::now() + kStopPoll);
    if (deadline) until = std::min(until, *deadline);
    if (stop_by) until = std::min(until, *stop_by);
    wire::Message message;
    Channel::Receive got = Channel::Receive::Closed;
    try {
      got = receive_message(channel, &message, until);
    } catch (const core::Error& e) {
      return Lost{worker + " sent a damaged message: " + e.describe(), false};
    }
    if (got == Channel::Receive::Closed)
      return Lost{worker + " ended while running it", true, stop_by.has_value()};
    if (got == Channel::Receive::TimedOut) {
      const Clock::time_point now = Clock::now();
      if (stop_by && now >= *stop_by) {
        return Lost{
            fmt::format("{} did not end it within {} of the stop ({}) and was killed", worker,
                        seconds_text(limits.stop_grace), core::signal_name(core::stop_signal())),
            false, true};
      }
      if (now < silent_at && (!deadline || now < *deadline)) continue;  // a stop poll
      if (deadline && now >= *deadline) {
        return Lost{"walker exceeded execution.walker_timeout (" +
                        seconds_text(*limits.walker_timeout) + "); " + worker + " was killed",
                    false};
      }
      return Lost{worker + " sent no heartbeat for " + seconds_text(limits.heartbeat_timeout) +
                      " (hung or stopped) and was killed",
                  false};
    }
    silent_at = Clock::now() + limits.heartbeat_timeout;
    switch (wire::kind_of(message)) {
      case wire::MessageKind::Heartbeat:
        continue;
      case wire::MessageKind::Result: {
        auto& result = std::get<SegmentResult>(message);
        if (result.task_id == task.task_id) return std::move(result);
        return Lost{fmt::format("{} answered task {} with the result of task {}", worker,
                                task.task_id, result.task_id),
                    false};
      }
      case wire::MessageKind::Error:
        return Lost{worker + " reported: " + std::get<wire::ErrorReport>(message).message, false};
      default:
        return Lost{worker + " sent a " + kind_text(message) + " message instead of a result",
                    false};
    }
  }
}

}  // namespace trails::exec
