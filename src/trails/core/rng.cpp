#include "trails/core/rng.h"

#include <cmath>

#include "trails/core/error.h"

namespace trails::core {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

namespace {

std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

Rng::Rng(std::uint64_t seed) {
  std::uint64_t x = seed;
  for (auto& word : s_) word = splitmix64(x);
}

Rng Rng::from_state(const std::array<std::uint64_t, 4>& state) {
  TRAILS_CHECK(state[0] != 0 || state[1] != 0 || state[2] != 0 || state[3] != 0,
               "xoshiro256** state must not be all zero");
  Rng rng(0);
  rng.s_ = state;
  return rng;
}

Rng Rng::stream(std::uint64_t seed, std::string_view purpose, std::uint64_t a, std::uint64_t b) {
  std::uint64_t x = seed;
  std::uint64_t key = splitmix64(x) ^ fnv1a(purpose);
  key = splitmix64(key) ^ a;
  key = splitmix64(key) ^ b;
  return Rng(splitmix64(key));
}

std::uint64_t Rng::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform() { return static_cast<double>(next_u64() >> 11) * 0x1.0p-53; }

std::uint64_t Rng::below(std::uint64_t n) {
  TRAILS_CHECK(n > 0, "Rng::below needs n > 0");
  // Lemire's multiply-and-reject: unbiased, one multiplication in the common case.
  __uint128_t m = static_cast<__uint128_t>(next_u64()) * n;
  auto low = static_cast<std::uint64_t>(m);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<__uint128_t>(next_u64()) * n;
      low = static_cast<std::uint64_t>(m);
    }
  }
  return static_cast<std::uint64_t>(m >> 64);
}

double Rng::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_normal_;
  }
  // Marsaglia's polar method: no trigonometric functions, so libm differences cannot leak in.
  double u, v, s;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * std::log(s) / s);
  spare_normal_ = v * factor;
  has_spare_ = true;
  return u * factor;
}

}  // namespace trails::core
