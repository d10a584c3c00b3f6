// bench/we_resample_cost: one weighted-ensemble resampling's cost (WeSpawner::choose: recycle,
// bin, allocate, merge/split/equalise) against the number of live walkers and of grid bins, for
// the budget allocation (W slots) and the per-bin one (4 per occupied bin). The live walkers'
// end points are uniform on [0, 1) (1-D grid of B bins on [0, 1)), their weights log-uniform over
// six decades (so equalisation has work to do), 5 % of them in a recycling box. Each cell is the
// median of REPEATS calls. Not a test.
// Usage: bench_we_resample_cost [REPEATS=5]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "trails/binning/uniform_grid.h"
#include "trails/core/rng.h"
#include "trails/features/frame_history.h"
#include "trails/spawners/we_spawner.h"

using namespace trails;

namespace {

double one_resample(int walkers, int bins, bool per_bin, std::uint64_t seed) {
  core::Rng gen(seed);
  features::FrameHistory history(1);
  std::vector<features::FrameHistory::WalkerSpan> spans;
  std::vector<double> cvs;
  std::vector<double> weights;
  for (int w = 0; w < walkers; ++w) {
    spans.push_back({w, 1});
    cvs.push_back(gen.uniform());
    weights.push_back(std::pow(10.0, -6.0 * gen.uniform()));
  }
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  for (auto& x : weights) x /= total;
  history.append(0, spans, cvs);
  history.append(1, spans, cvs);  // the live iteration (iteration 0 holds the basis)
  const binning::UniformGrid grid({bins}, {0.0}, {1.0});
  spawners::WeSpawner we(spawners::WeOptions{per_bin, 4, {{{0.95, 1.0}}}, 0});
  we.restore({{"weights", weights},
              {"recycled", std::vector<int>(static_cast<std::size_t>(walkers), 0)},
              {"recycled_walkers", 0},
              {"recycled_flux", nullptr},
              {"basis_frame", 0}});
  core::Rng rng(seed + 1);
  const auto t0 = std::chrono::steady_clock::now();
  const auto chosen = we.choose(history, grid, walkers, rng);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (chosen.empty()) std::abort();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::stoi(argv[1]) : 5;
  std::printf("WE resampling per iteration (median of %d), milliseconds\n", repeats);
  std::printf("%-8s %-7s %12s %12s\n", "walkers", "bins", "budget", "per_bin(4)");
  for (const int walkers : {16, 64, 256, 1024, 4096, 16384}) {
    for (const int bins : {10, 100, 1000}) {
      double cell[2];
      for (int mode = 0; mode < 2; ++mode) {
        std::vector<double> t;
        for (int r = 0; r < repeats; ++r) {
          t.push_back(one_resample(walkers, bins, mode == 1, 1000u * static_cast<unsigned>(r) + 7));
        }
        std::sort(t.begin(), t.end());
        cell[mode] = t[t.size() / 2] * 1e3;
      }
      std::printf("%-8d %-7d %12.3f %12.3f\n", walkers, bins, cell[0], cell[1]);
    }
  }
  return 0;
}
