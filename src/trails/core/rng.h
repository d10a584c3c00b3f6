// Portable, keyed random streams. Every random number in Trails comes from an Rng made from a
// key (campaign seed, purpose, iteration, walker), never from a shared generator or thread timing.
// The algorithms (splitmix64 seeding, xoshiro256**, Lemire bounded ints, polar normals) are fixed
// here so that results are bitwise identical across compilers and standard libraries.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace trails::core {

// One step of splitmix64 (Steele, Lea & Flood; Vigna's reference splitmix64.c): advances `state`
// by the golden-ratio increment and returns the mixed value. Seeds Rng and keys its streams.
std::uint64_t splitmix64(std::uint64_t& state);

class Rng {
 public:
  explicit Rng(std::uint64_t seed);

  // A generator whose xoshiro256** state is exactly `state` (not all zero). For known-answer tests
  // of the published algorithm; campaigns use the seeded constructor or stream().
  static Rng from_state(const std::array<std::uint64_t, 4>& state);

  // A stream keyed by purpose ("spawn", "init", ...) and up to two indices.
  static Rng stream(std::uint64_t seed, std::string_view purpose, std::uint64_t a = 0,
                    std::uint64_t b = 0);

  std::uint64_t next_u64();
  double uniform();                      // [0, 1), 53 random bits
  std::uint64_t below(std::uint64_t n);  // uniform in [0, n); n > 0
  double normal();                       // standard normal

 private:
  std::array<std::uint64_t, 4> s_{};
  double spare_normal_ = 0.0;
  bool has_spare_ = false;
};

// Fisher–Yates shuffle of a random-access range, driven by rng.
template <class It>
void shuffle(It first, It last, Rng& rng) {
  auto n = static_cast<std::uint64_t>(last - first);
  for (std::uint64_t i = n; i > 1; --i) {
    std::uint64_t j = rng.below(i);
    std::swap(first[i - 1], first[j]);
  }
}

}  // namespace trails::core
