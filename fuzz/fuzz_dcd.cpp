// The DCD reader (trajio/trajectory.h) on arbitrary bytes as a .dcd file.
#include <cstddef>
#include <cstdint>

#include "fuzz_input.h"
#include "trails/trajio/trajectory.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return trails::fuzz::read_as_file(
      data, size, ".dcd", [](const auto& file) { (void)trails::trajio::read_trajectory(file); });
}
