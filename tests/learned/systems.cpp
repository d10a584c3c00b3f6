#include "systems.h"

#include <cmath>

#include "trails/core/rng.h"

namespace trails::learned::test {
namespace {

void finish(System& s, int walkers, int frames, int lag, int n_features) {
  s.data.n_features = n_features;
  const std::vector<std::int64_t> segments(static_cast<std::size_t>(walkers), frames);
  s.data.pairs = lagged_pairs(segments, lag);
}

}  // namespace

System three_state_chain(int walkers, int frames, int lag, std::uint64_t seed, bool on_a_line) {
  System s;
  s.transition.resize(3, 3);
  s.transition << 0.95, 0.05, 0.0, 0.025, 0.95, 0.025, 0.0, 0.05, 0.95;
  const double triangle[3][2] = {{0.0, 0.0}, {1.0, 0.0}, {0.5, 0.8}};
  const double line[3][2] = {{0.0, 0.0}, {0.5, 0.0}, {1.0, 0.0}};
  const auto& centre = on_a_line ? line : triangle;
  const double pi[3] = {0.25, 0.5, 0.25};  // stationary: pi T = pi
  for (int w = 0; w < walkers; ++w) {
    core::Rng rng = core::Rng::stream(seed, "learned-test-chain", static_cast<std::uint64_t>(w));
    double u = rng.uniform();
    int state = u < pi[0] ? 0 : u < pi[0] + pi[1] ? 1 : 2;
    for (int f = 0; f < frames; ++f) {
      if (f > 0) {
        u = rng.uniform();
        int next = 0;
        for (double acc = s.transition(state, 0); u >= acc && next < 2;)
          acc += s.transition(state, ++next);
        state = next;
      }
      s.states.push_back(state);
      s.data.rows.push_back(centre[state][0] + 0.1 * rng.normal());
      s.data.rows.push_back(centre[state][1] + 0.1 * rng.normal());
      s.data.rows.push_back(0.1 * rng.normal());
      s.data.rows.push_back(0.1 * rng.normal());
    }
  }
  finish(s, walkers, frames, lag, 4);
  return s;
}

System two_basins(int walkers, int frames, int lag, std::uint64_t seed) {
  System s;
  for (int w = 0; w < walkers; ++w) {
    core::Rng rng = core::Rng::stream(seed, "learned-test-basins", static_cast<std::uint64_t>(w));
    int basin = w % 2;
    for (int f = 0; f < frames; ++f) {
      if (f > 0 && rng.uniform() < 0.02) basin = 1 - basin;
      s.states.push_back(basin);
      s.data.rows.push_back((basin ? 1.0 : -1.0) + 0.35 * rng.normal());
      s.data.rows.push_back(0.35 * rng.normal());
    }
  }
  finish(s, walkers, frames, lag, 2);
  return s;
}

System muller_brown(int walkers, int frames, int lag, std::uint64_t seed) {
  // V = sum_k A_k exp(a_k dx² + b_k dx dy + c_k dy²), dx = x − x_k, dy = y − y_k (Müller &
  // Brown 1979); overdamped Euler–Maruyama at kT = 25, dt = 2e-5, a frame every 50 steps.
  constexpr double A[4] = {-200, -100, -170, 15}, a[4] = {-1, -1, -6.5, 0.7},
                   b[4] = {0, 0, 11, 0.6}, c[4] = {-10, -10, -6.5, 0.7}, x0[4] = {1, 0, -0.5, -1},
                   y0[4] = {0, 0.5, 1.5, 1};
  constexpr double kT = 25, dt = 2e-5;
  constexpr int stride = 50;
  const double noise = std::sqrt(2 * kT * dt);
  System s;
  for (int w = 0; w < walkers; ++w) {
    core::Rng rng = core::Rng::stream(seed, "learned-test-mb", static_cast<std::uint64_t>(w));
    double x = w % 2 ? 0.623 : -0.558, y = w % 2 ? 0.028 : 1.442;  // minima B and A
    for (int f = 0; f < frames; ++f) {
      for (int k = 0; k < stride; ++k) {
        double gx = 0, gy = 0;
        for (int i = 0; i < 4; ++i) {
          const double dx = x - x0[i], dy = y - y0[i];
          const double e = A[i] * std::exp(a[i] * dx * dx + b[i] * dx * dy + c[i] * dy * dy);
          gx += e * (2 * a[i] * dx + b[i] * dy);
          gy += e * (b[i] * dx + 2 * c[i] * dy);
        }
        x += -gx * dt + noise * rng.normal();
        y += -gy * dt + noise * rng.normal();
      }
      s.data.rows.push_back(x);
      s.data.rows.push_back(y);
      s.states.push_back(x > 0.2 ? 1 : 0);
    }
  }
  finish(s, walkers, frames, lag, 2);
  return s;
}

}  // namespace trails::learned::test
