// The executors' wire format (exec/wire/wire.h) on arbitrary bytes: a stream of frames cut by
// take_frame, each payload decoded; a message that decodes encodes again and decodes to the
// same bytes (the format is exact, docs/execution.md).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "trails/core/error.h"
#include "trails/exec/wire/wire.h"

namespace wire = trails::exec::wire;

namespace {
void decode_round_trip(const std::vector<std::uint8_t>& payload) {
  try {
    const auto message = wire::decode(payload);
    const auto again = wire::encode(message);
    if (wire::encode(wire::decode(again)) != again) __builtin_trap();
  } catch (const trails::core::Error&) {
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  decode_round_trip(std::vector<std::uint8_t>(data, data + size));  // a bare payload
  std::vector<std::uint8_t> buffer(data, data + size);              // a byte stream of frames
  try {
    constexpr std::size_t kMaxBytes = 1 << 20;
    while (const auto payload = wire::take_frame(buffer, kMaxBytes)) decode_round_trip(*payload);
  } catch (const trails::core::Error&) {
  }
  return 0;
}
