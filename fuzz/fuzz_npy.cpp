// The .npy reader (core/npy.h) on arbitrary bytes, and every element it hands back read as its
// callers read them.
#include <cstddef>
#include <cstdint>

#include "fuzz_input.h"
#include "trails/core/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return trails::fuzz::read_as_file(data, size, ".npy", [](const auto& file) {
    const auto a = trails::core::read_npy(file);
    const std::int64_t n = a.n_elements();
    if (static_cast<std::size_t>(n) * static_cast<std::size_t>(a.item_size) != a.data.size()) {
      __builtin_trap();  // the reader promised n_elements() x item_size bytes
    }
    for (std::int64_t i = 0; i < n; ++i) {
      if (a.kind == 'f' && (a.item_size == 4 || a.item_size == 8)) (void)a.float_at(i);
      if (a.kind == 'i' || a.kind == 'b') (void)a.int_at(i);
      if (a.kind == 'u') (void)a.uint_at(i);
    }
  });
}
