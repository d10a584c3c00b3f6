// Channel: the transport of the wire format (docs/execution.md, "Wire format"), one peer at the
// other end: a worker process over pipes, or an MPI rank. The worker loop (worker.h) and the
// driver's half of the protocol (worker_link.h) speak wire messages over a Channel, so a
// transport is the one thing that differs between out-of-process executors. send() may be
// called from one thread while another waits in receive(); two sends must not overlap (callers
// serialise them).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "trails/exec/wire/wire.h"

namespace trails::exec {

class Channel {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Receive { Message, Closed, TimedOut };

  virtual ~Channel() = default;
  // Sends one message's payload; false when the peer is gone or did not take it by `until`.
  virtual bool send(std::span<const std::uint8_t> payload,
                    std::optional<Clock::time_point> until) = 0;
  // The next payload (into *payload); Closed when the peer ended its stream between messages,
  // TimedOut when `until` passed first. Throws CorruptionError for damaged bytes.
  virtual Receive receive(std::vector<std::uint8_t>* payload,
                          std::optional<Clock::time_point> until) = 0;
};

// encode + send.
bool send_message(Channel& channel, const wire::Message& message,
                  std::optional<Channel::Clock::time_point> until = std::nullopt);
// receive + decode (throws as wire::decode).
Channel::Receive receive_message(Channel& channel, wire::Message* message,
                                 std::optional<Channel::Clock::time_point> until = std::nullopt);

// A worker's end of a pipe pair: frames (wire.h) read from in_fd, written to out_fd; blocking,
// so `until` must be empty. A write that fails (the driver left) is a false send.
class FdChannel final : public Channel {
 public:
  FdChannel(int in_fd, int out_fd) : in_fd_(in_fd), out_fd_(out_fd) {}
  bool send(std::span<const std::uint8_t> payload, std::optional<Clock::time_point> until) override;
  Receive receive(std::vector<std::uint8_t>* payload,
                  std::optional<Clock::time_point> until) override;

 private:
  int in_fd_;
  int out_fd_;
};

}  // namespace trails::exec
