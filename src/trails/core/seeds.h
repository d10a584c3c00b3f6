// Per-walker engine seeds, exactly as Trails-MD derives them (compat:walker-seed), so that a
// walker's seed in Trails equals its seed in Trails-MD for the same base seed.
#pragma once

#include <cstdint>

namespace trails::core {

// seed = (base + iteration*100003 + walker*1009) mod 2147483647, with 0 mapped to 1.
constexpr std::uint64_t walker_seed(std::uint64_t base, std::uint64_t iteration,
                                    std::uint64_t walker) {
  constexpr std::uint64_t modulus = 2147483647ULL;
  const std::uint64_t s = (base % modulus + (iteration % modulus) * 100003ULL % modulus +
                           (walker % modulus) * 1009ULL % modulus) %
                          modulus;
  return s == 0 ? 1 : s;
}

}  // namespace trails::core
