// bench/spawner_cost: one spawn's cost (spawners::Spawner::choose, W = 16 walkers) against the
// candidate pool's size, for the density (hard and soft), Voronoi (150 cells), LOF (20
// neighbours) and FPS spawners, and the density spawner (hard) with the adaptive binners
// (gradient, mab, eigenvector: binning.scheme). The pool is a 2-D cloud shaped like an
// exploration campaign's (Gaussian blobs around a path of growing length), stored as blocks of
// 1000 frames, binned once on a 30 x 30 grid (the campaign keeps that table incrementally, so
// uniform binning is not part of a spawn; an adaptive binner refits and re-bins the pool inside
// every spawn). Each cell is the median of REPEATS calls with different spawn streams. A scheme
// named NAME_warm (lof_warm) is one spawner that sees the pool REPEATS blocks before the pool
// size and is then called after every appended block, as a campaign calls it; its cell is the
// median of those REPEATS calls (what an incremental structure costs per iteration). The
// others are a spawner reset (reset_memory) before each call: the pool seen for the first time. Not
// a test. Usage: bench_spawner_cost [MAX_POOL=1000000] [REPEATS=3]
//        [SCHEMES=density,soft,voronoi,lof,fps,gradient,mab,eigenvector,lof_warm]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "trails/binning/bin_table.h"
#include "trails/binning/binner.h"
#include "trails/binning/uniform_grid.h"
#include "trails/core/rng.h"
#include "trails/features/frame_history.h"
#include "trails/spawners/density_spawner.h"
#include "trails/spawners/fps_spawner.h"
#include "trails/spawners/lof_spawner.h"
#include "trails/spawners/voronoi_spawner.h"

using namespace trails;

namespace {

constexpr std::int64_t kBlock = 1000;  // frames per stored iteration
constexpr int kWalkers = 16;

std::unique_ptr<spawners::Spawner> make(std::string scheme) {
  if (scheme.ends_with("_warm")) scheme.resize(scheme.size() - 5);
  for (const char* adaptive : {"gradient", "mab", "eigenvector"}) {
    if (scheme == adaptive) {
      spawners::DensityOptions o;
      o.binning.scheme = binning::binning_scheme(scheme);
      return std::make_unique<spawners::DensitySpawner>(o);
    }
  }
  if (scheme == "density")
    return std::make_unique<spawners::DensitySpawner>(spawners::DensityOptions{});
  if (scheme == "soft") {
    spawners::DensityOptions o;
    o.hard = false;
    return std::make_unique<spawners::DensitySpawner>(o);
  }
  if (scheme == "voronoi") {
    return std::make_unique<spawners::VoronoiSpawner>(spawners::VoronoiOptions{150, false, {}});
  }
  if (scheme == "lof") return std::make_unique<spawners::LofSpawner>(spawners::LofOptions{20, {}});
  return std::make_unique<spawners::FpsSpawner>(spawners::FpsOptions{});
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t max_pool = argc > 1 ? std::stoll(argv[1]) : 1000000;
  const int repeats = argc > 2 ? std::stoi(argv[2]) : 3;
  std::vector<std::string> schemes = {"density", "soft",     "voronoi", "lof",
                                      "fps",     "gradient", "mab",     "eigenvector"};
  if (argc > 3) {
    schemes.clear();
    std::string list = argv[3];
    for (std::size_t at = 0; at <= list.size();) {
      const auto comma = std::min(list.find(',', at), list.size());
      schemes.push_back(list.substr(at, comma - at));
      at = comma + 1;
    }
  }
  const binning::UniformGrid grid({30, 30}, {-1.5, -0.5}, {1.2, 2.0});
  features::FrameHistory history(2);
  binning::BinTable table(false);
  core::Rng noise(1);
  fmt::print("pool_frames");
  for (const auto& s : schemes) fmt::print("\t{}_ms", s);
  fmt::print("\n");
  std::vector<std::unique_ptr<spawners::Spawner>> warm(schemes.size());
  std::vector<std::vector<double>> warm_ms(schemes.size());
  for (std::size_t i = 0; i < schemes.size(); ++i) {
    if (schemes[i].ends_with("_warm")) warm[i] = make(schemes[i]);
  }
  for (std::int64_t pool = 10000; pool <= max_pool; pool *= 10) {
    for (auto& ms : warm_ms) ms.clear();
    while (history.frames() < pool) {  // grow the campaign to `pool` frames
      std::vector<double> cvs;
      const double t = static_cast<double>(history.iterations());
      for (std::int64_t f = 0; f < kBlock; ++f) {
        const double s = std::fmod(t * 0.37 + noise.uniform() * 3.0, 3.0);  // along the path
        cvs.push_back(-1.0 + 0.7 * s + 0.08 * noise.normal());
        cvs.push_back(1.6 - 0.5 * s + 0.08 * noise.normal());
      }
      const std::vector<features::FrameHistory::WalkerSpan> w = {{0, kBlock}};
      history.append(history.iterations(), w, cvs);
      std::vector<std::int64_t> bins;
      for (std::size_t i = 0; i < cvs.size(); i += 2) {
        bins.push_back(grid.bin_of(std::span<const double>(cvs.data() + i, 2)));
      }
      table.add_block(history.block_first(history.iterations() - 1), bins);
      // A warm spawner is built from scratch REPEATS blocks before the pool size (as a resumed
      // campaign does) and then timed on each block after it.
      const std::int64_t built_at = pool - repeats * kBlock;
      for (std::size_t i = 0; i < schemes.size(); ++i) {
        if (!warm[i] || history.frames() < built_at) continue;
        if (history.frames() == built_at) warm[i]->reset_memory();
        core::Rng rng = core::Rng::stream(7, "spawn", history.iterations());
        const spawners::SpawnPool p{history, 0, table, grid};
        const auto t0 = std::chrono::steady_clock::now();
        warm[i]->choose(p, kWalkers, rng);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
        if (history.frames() > built_at) warm_ms[i].push_back(ms);
      }
    }
    fmt::print("{}", pool);
    for (std::size_t i = 0; i < schemes.size(); ++i) {
      const auto& scheme = schemes[i];
      if (warm[i]) {
        auto ms = warm_ms[i];
        std::sort(ms.begin(), ms.end());
        fmt::print("\t{:.2f}", ms.empty() ? 0.0 : ms[ms.size() / 2]);
        continue;
      }
      auto spawner = make(scheme);
      std::vector<double> ms;
      for (int r = 0; r < repeats; ++r) {
        spawner->reset_memory();  // each call sees the pool for the first time
        core::Rng rng = core::Rng::stream(7, "spawn", static_cast<std::uint64_t>(r));
        const spawners::SpawnPool p{history, 0, table, grid};
        const auto t0 = std::chrono::steady_clock::now();
        const auto chosen = spawner->choose(p, kWalkers, rng);
        ms.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count());
        if (chosen.size() != static_cast<std::size_t>(kWalkers)) return 1;
      }
      std::sort(ms.begin(), ms.end());
      fmt::print("\t{:.2f}", ms[ms.size() / 2]);
      std::fflush(stdout);
    }
    fmt::print("\n");
  }
  return 0;
}
