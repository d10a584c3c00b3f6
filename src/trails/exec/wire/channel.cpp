// send_message / receive_message and FdChannel (channel.h).
#include "trails/exec/wire/channel.h"

#include "trails/core/error.h"

namespace trails::exec {

bool send_message(Channel& channel, const wire::Message& message,
                  std::optional<Channel::Clock::time_point> until) {
  return channel.send(wire::encode(message), until);
}

Channel::Receive receive_message(Channel& channel, wire::Message* message,
                                 std::optional<Channel::Clock::time_point> until) {
  std::vector<std::uint8_t> payload;
  const Channel::Receive got = channel.receive(&payload, until);
  if (got == Channel::Receive::Message) *message = wire::decode(payload);
  return got;
}

bool FdChannel::send(std::span<const std::uint8_t> payload,
                     std::optional<Clock::time_point> until) {
  TRAILS_CHECK(!until, "an FdChannel blocks: no deadline");
  try {
    wire::write_frame(out_fd_, payload);
    return true;
  } catch (const core::EngineError&) {
    return false;  // the reader is gone (EPIPE)
  }
}

Channel::Receive FdChannel::receive(std::vector<std::uint8_t>* payload,
                                    std::optional<Clock::time_point> until) {
  TRAILS_CHECK(!until, "an FdChannel blocks: no deadline");
  std::optional<std::vector<std::uint8_t>> frame = wire::read_frame(in_fd_);
  if (!frame) return Receive::Closed;
  *payload = std::move(*frame);
  return Receive::Message;
}

}  // namespace trails::exec
