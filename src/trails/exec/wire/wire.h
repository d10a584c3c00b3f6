// The one versioned task/result wire format of the out-of-process executors (docs/execution.md):
// a message is a CBOR map {format, version, kind, body} (nlohmann_json's to_cbor); every
// floating-point field travels as a CBOR byte string of little-endian IEEE-754 binary64 values,
// so NaN payloads, infinities and -0.0 round-trip bitwise. Decoding checks the format name and
// version before anything else and rejects missing, mistyped or unknown fields. On a byte stream
// (a pipe, a socket) each message is one frame: 4 magic bytes "TRWF", a little-endian uint32
// payload length, the payload. Errors: CorruptionError for damaged bytes, InputError for a peer
// speaking another version. Stateless and thread-safe; fds are the caller's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "trails/engines/segment.h"
#include "trails/engines/slot.h"

namespace trails::exec::wire {

// Bump on any change of a body's fields or of their encoding.
inline constexpr std::uint32_t kVersion = 3;  // 2: the Setup message; 3: the Stop message
inline constexpr std::size_t kMaxFrameBytes = std::size_t{1} << 30;  // 1 GiB per message

enum class MessageKind : std::uint8_t {
  Hello = 1,      // either side, first: who is speaking (program, engine, host, pid, slot)
  Task = 2,       // driver -> worker: one SegmentTask
  Result = 3,     // worker -> driver: the SegmentResult of a task, same task_id
  Heartbeat = 4,  // either side: still alive
  Shutdown = 5,   // driver -> worker: finish and exit
  Error = 6,      // worker -> driver: a failure outside any result (cannot start, bad message)
  Setup = 7,      // driver -> worker, first: the slot, the heartbeat interval, the engine setup
  Stop = 8,       // driver -> worker, at any time: end the running task as the signal would
};
std::string_view name(MessageKind kind);

struct Hello {
  std::string program;  // e.g. "trails 0.1.0 worker"
  std::string engine;   // the engine's name()
  std::string host;
  std::int64_t pid = 0;
  engines::Slot slot;  // the slot the worker serves
};
struct Heartbeat {
  std::int64_t sequence = 0;
};
struct Shutdown {
  std::string reason;
};
// The driver was stopped by `signal` (SIGTERM, SIGINT, SIGHUP): the worker ends its running task
// as that signal ends an in-process walker, answers its Result, and runs no further task.
struct Stop {
  std::int64_t signal = 0;
};
struct ErrorReport {
  std::int64_t task_id = -1;  // the task it concerns, -1 for none
  std::string message;
};

// What a worker needs to build its engine. engine_setup is opaque to exec/: the program that
// launches workers and the worker itself agree on it (Trails: engines::worker_engine_setup in
// engines/registry.h).
struct Setup {
  engines::Slot slot;
  std::int64_t heartbeat_ms = 0;  // the worker sends a Heartbeat this often while a task runs
  std::vector<std::uint8_t> engine_setup;
};

using Message = std::variant<Hello, engines::SegmentTask, engines::SegmentResult, Heartbeat,
                             Shutdown, ErrorReport, Setup, Stop>;
MessageKind kind_of(const Message& message);

std::vector<std::uint8_t> encode(const Message& message);
// Throws CorruptionError (not CBOR, not a Trails message, bad field) or InputError (version).
Message decode(std::span<const std::uint8_t> bytes);

// The frame of a payload: magic, length, payload. Throws CorruptionError over max_bytes.
std::vector<std::uint8_t> frame_of(std::span<const std::uint8_t> payload,
                                   std::size_t max_bytes = kMaxFrameBytes);
// Writes one frame (retrying short writes and EINTR). Throws CorruptionError if the payload is
// over max_bytes, EngineError if the fd fails (a closed pipe: ignore SIGPIPE to get the error).
void write_frame(int fd, std::span<const std::uint8_t> payload,
                 std::size_t max_bytes = kMaxFrameBytes);
// Reads one frame's payload; std::nullopt on end of stream before a frame starts. Throws
// CorruptionError on bad magic, a length over max_bytes or a stream that ends inside a frame.
std::optional<std::vector<std::uint8_t>> read_frame(int fd, std::size_t max_bytes = kMaxFrameBytes);

// The first whole frame's payload, removed from the front of `buffer` (bytes read from a
// non-blocking stream); std::nullopt while the frame is incomplete. Throws like read_frame.
std::optional<std::vector<std::uint8_t>> take_frame(std::vector<std::uint8_t>& buffer,
                                                    std::size_t max_bytes = kMaxFrameBytes);

void write_message(int fd, const Message& message, std::size_t max_bytes = kMaxFrameBytes);
std::optional<Message> read_message(int fd, std::size_t max_bytes = kMaxFrameBytes);

// Fields the format carries per struct. wire.cpp checks them against the structs at compile
// time, so adding a field to SegmentTask/SegmentResult/Configuration without encoding it (and
// bumping kVersion, and extending tests/exec/wire_test.cpp) does not build.
inline constexpr std::size_t kConfigurationFields = 5;
inline constexpr std::size_t kSegmentTaskFields = 7;
inline constexpr std::size_t kSegmentResultFields = 17;

namespace detail {
// Converts to anything: T{AnyField{}...} compiles for as many initialisers as T has fields.
struct AnyField {
  template <class T>
  operator T() const;  // declared only: used in unevaluated contexts
};
template <class T, class... Fields>
consteval std::size_t field_count() {
  if constexpr (requires { T{Fields{}..., AnyField{}}; }) {
    return field_count<T, Fields..., AnyField>();
  } else {
    return sizeof...(Fields);
  }
}
}  // namespace detail

}  // namespace trails::exec::wire
