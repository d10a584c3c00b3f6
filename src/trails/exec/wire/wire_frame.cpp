// Framing of wire messages on a byte stream (wire.h): "TRWF", a little-endian uint32 payload
// length, the payload. The magic makes a stream that is not ours (a stray print on a worker's
// stdout, a desynchronised reader) fail at once and by name instead of as a huge length.
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "trails/core/error.h"
#include "trails/exec/wire/wire.h"

namespace trails::exec::wire {
namespace {

constexpr std::array<std::uint8_t, 4> kMagic = {'T', 'R', 'W', 'F'};
constexpr std::size_t kHeaderBytes = 8;

void write_all(int fd, const std::uint8_t* data, std::size_t n) {
  while (n > 0) {
    const ssize_t written = ::write(fd, data, n);
    if (written < 0) {
      if (errno == EINTR) continue;
      throw core::EngineError(
          fmt::format("wire: writing a frame to fd {} failed: {}", fd, std::strerror(errno)));
    }
    data += written;
    n -= static_cast<std::size_t>(written);
  }
}

// Reads up to n bytes; returns how many arrived before end of stream.
std::size_t read_up_to(int fd, std::uint8_t* data, std::size_t n) {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd, data + got, n - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw core::EngineError(
          fmt::format("wire: reading a frame from fd {} failed: {}", fd, std::strerror(errno)));
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  return got;
}

}  // namespace

std::vector<std::uint8_t> frame_of(std::span<const std::uint8_t> payload, std::size_t max_bytes) {
  if (payload.size() > max_bytes || payload.size() > UINT32_MAX) {
    throw core::CorruptionError(
        fmt::format("wire: a {}-byte message is over the frame limit of {} bytes", payload.size(),
                    std::min<std::size_t>(max_bytes, UINT32_MAX)));
  }
  std::vector<std::uint8_t> frame(kHeaderBytes + payload.size());
  std::copy(kMagic.begin(), kMagic.end(), frame.begin());
  const auto n = static_cast<std::uint32_t>(payload.size());
  for (int b = 0; b < 4; ++b) frame[4 + b] = static_cast<std::uint8_t>(n >> (8 * b));
  std::copy(payload.begin(), payload.end(), frame.begin() + kHeaderBytes);
  return frame;
}

void write_frame(int fd, std::span<const std::uint8_t> payload, std::size_t max_bytes) {
  const std::vector<std::uint8_t> frame = frame_of(payload, max_bytes);
  write_all(fd, frame.data(), frame.size());
}

namespace {

// The payload length a frame header announces, after checking its magic and the limit.
std::uint32_t checked_length(std::span<const std::uint8_t> header, std::size_t max_bytes) {
  if (!std::equal(kMagic.begin(), kMagic.end(), header.begin())) {
    throw core::CorruptionError(fmt::format(
        "wire: not a Trails wire frame (first bytes {:02x} {:02x} {:02x} {:02x}, expected "
        "\"TRWF\"); is something else writing to this stream?",
        header[0], header[1], header[2], header[3]));
  }
  std::uint32_t n = 0;
  for (int b = 0; b < 4; ++b) n |= std::uint32_t{header[4 + b]} << (8 * b);
  if (n > max_bytes) {
    throw core::CorruptionError(
        fmt::format("wire: frame of {} bytes is over the limit of {} bytes", n, max_bytes));
  }
  return n;
}

}  // namespace

std::optional<std::vector<std::uint8_t>> read_frame(int fd, std::size_t max_bytes) {
  std::array<std::uint8_t, kHeaderBytes> header{};
  const std::size_t got = read_up_to(fd, header.data(), header.size());
  if (got == 0) return std::nullopt;  // the peer closed between frames
  if (got < header.size()) {
    throw core::CorruptionError(
        fmt::format("wire: truncated frame: the stream ended after {} of the {} header bytes", got,
                    kHeaderBytes));
  }
  const std::uint32_t n = checked_length(header, max_bytes);
  std::vector<std::uint8_t> payload(n);
  if (const std::size_t body = read_up_to(fd, payload.data(), n); body < n) {
    throw core::CorruptionError(fmt::format(
        "wire: truncated frame: the header announces {} bytes, the stream ended after {}", n,
        body));
  }
  return payload;
}

std::optional<std::vector<std::uint8_t>> take_frame(std::vector<std::uint8_t>& buffer,
                                                    std::size_t max_bytes) {
  if (buffer.size() < kHeaderBytes) {
    // A foreign stream fails as soon as its first bytes differ from the magic.
    if (!std::equal(buffer.begin(), buffer.end(), kMagic.begin())) {
      std::array<std::uint8_t, kHeaderBytes> header{};
      std::copy(buffer.begin(), buffer.end(), header.begin());
      checked_length(header, max_bytes);
    }
    return std::nullopt;
  }
  const std::uint32_t n =
      checked_length(std::span<const std::uint8_t>(buffer.data(), kHeaderBytes), max_bytes);
  if (buffer.size() < kHeaderBytes + n) return std::nullopt;
  const auto begin = buffer.begin() + static_cast<std::ptrdiff_t>(kHeaderBytes);
  const auto end = begin + static_cast<std::ptrdiff_t>(n);
  std::vector<std::uint8_t> payload(begin, end);
  buffer.erase(buffer.begin(), end);
  return payload;
}

void write_message(int fd, const Message& message, std::size_t max_bytes) {
  write_frame(fd, encode(message), max_bytes);
}

std::optional<Message> read_message(int fd, std::size_t max_bytes) {
  std::optional<std::vector<std::uint8_t>> payload = read_frame(fd, max_bytes);
  if (!payload) return std::nullopt;
  return decode(*payload);
}

}  // namespace trails::exec::wire
