// The TRR reader (trajio/trr.h) on arbitrary bytes as a .trr file.
#include <cstddef>
#include <cstdint>

#include "fuzz_input.h"
#include "trails/trajio/trr.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return trails::fuzz::read_as_file(data, size, ".trr",
                                    [](const auto& file) { (void)trails::trajio::read_trr(file); });
}
