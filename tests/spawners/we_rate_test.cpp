// Rate exactness of the weighted ensemble with recycling (Trails-MD's test_we_rate_exactness,
// docs/kinetics.md): the 1-D biased walk x <- max(0, x - 0.30 + N(0,1)) from the source x = 0
// to the sink x >= 10 (absorbing within a segment). Brute force: the mean first-passage time of
// 4000 independent walks. WE: 40 walkers, 4 steps per iteration, 10 bins on [0, 10], recycling
// at x >= 10 to the basis x = 0, 3000 iterations; MFPT = τ / mean flux of the second half
// (Hill relation). They must agree within ×[0.67, 1.5].
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "trails/analysis/hill_mfpt.h"
#include "trails/spawners/we_spawner.h"

namespace trails::spawners {
namespace {

constexpr double kSink = 10.0;
constexpr int kFramesPerWalker = 4;

double step(double x, core::Rng& rng) {
  return x >= kSink ? x : std::max(0.0, x - 0.30 + rng.normal());
}

double brute_force_mfpt(core::Rng& rng) {
  double total = 0.0;
  const int n = 4000;
  for (int t = 0; t < n; ++t) {
    double x = 0.0;
    std::int64_t steps = 0;
    while (x < kSink) {
      x = step(x, rng);
      ++steps;
    }
    total += static_cast<double>(steps);
  }
  return total / n;
}

TEST(WeRate, BiasedWalkMfptMatchesBruteForce) {
  core::Rng rng(2024);
  const double brute = brute_force_mfpt(rng);

  const binning::UniformGrid grid({10}, {0.0}, {kSink});
  WeSpawner we(WeOptions{false, 4, {{{kSink, 1e9}}}, 0, {}});
  features::FrameHistory history(1);
  const int walkers = 40;
  std::vector<double> starts(walkers, 0.0);
  std::vector<double> flux;
  for (std::int64_t it = 0; it < 3000; ++it) {
    std::vector<features::FrameHistory::WalkerSpan> spans;
    std::vector<double> cvs;
    for (std::size_t w = 0; w < starts.size(); ++w) {
      spans.push_back({static_cast<std::int64_t>(w), kFramesPerWalker});
      double x = starts[w];
      for (int f = 0; f < kFramesPerWalker; ++f) {
        // Iteration 0's first frame is the source itself: the recycling basis (index 0).
        x = it == 0 && w == 0 && f == 0 ? 0.0 : step(x, rng);
        cvs.push_back(x);
      }
    }
    history.append(it, spans, cvs);
    auto spawn_rng = core::Rng::stream(7, "spawn", static_cast<std::uint64_t>(it));
    const auto chosen = we.choose(history, grid, walkers, spawn_rng);
    flux.push_back(*we.weighting()->recycled_flux);
    starts.clear();
    for (const auto g : chosen) starts.push_back(history.point(g)[0]);
  }
  const auto mfpt = analysis::steady_state_mfpt(flux, kFramesPerWalker, 0.5);
  ASSERT_TRUE(mfpt.mfpt);
  const double ratio = *mfpt.mfpt / brute;
  EXPECT_GT(ratio, 0.67) << "WE " << *mfpt.mfpt << " steps, brute force " << brute;
  EXPECT_LT(ratio, 1.5) << "WE " << *mfpt.mfpt << " steps, brute force " << brute;
  // Steady state: the last two quarters carry comparable flux.
  const auto q = flux.size() / 4;
  const double q3 = std::accumulate(flux.begin() + 2 * q, flux.begin() + 3 * q, 0.0);
  const double q4 = std::accumulate(flux.begin() + 3 * q, flux.end(), 0.0);
  EXPECT_GT(q4 / q3, 0.5);
  EXPECT_LT(q4 / q3, 2.0);
  const auto& w = we.weighting()->weights;
  EXPECT_GT(*std::min_element(w.begin(), w.end()), 1e-12);
  std::printf("biased walk: WE MFPT %.1f steps, brute force %.1f steps (ratio %.3f)\n", *mfpt.mfpt,
              brute, ratio);
}

}  // namespace
}  // namespace trails::spawners
