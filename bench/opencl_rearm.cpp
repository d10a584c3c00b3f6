// The OpenMM engine on a GPU-type platform (OpenCL; PoCL's CPU device here): what a warm slot's
// re-arm costs with engine.reproducibility fast against bitwise (a Context rebuild per walker,
// what every walker paid before fast existed), for campaign walkers and for a swarm cycle of 16
// trials, the walker phase of 2 × WALKERS walkers on one warm slot (bench/opencl_rearm.sh sets it
// beside Trails-MD's pattern), and the aggregate throughput of k = 1, 2, 4 Contexts on device 0.
// Engine level (one process, no campaign), so it needs only the engines library.
// usage: bench_opencl_rearm [PREPARED_DIR] [WALKERS] [STEPS] [STRIDE]; env TRAILS_BENCH_PLATFORM
// (OpenCL), TRAILS_BENCH_PRECISION (single). Prints one JSON object; times in seconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/engines/openmm/openmm_engine.h"
#include "trails/engines/openmm/prepared_system.h"

namespace {

using trails::config::Reproducibility;
using trails::engines::EngineInstance;
using trails::engines::SegmentResult;
using trails::engines::SegmentTask;
using trails::engines::Slot;
using trails::engines::openmm::OpenMMEngine;
using Clock = std::chrono::steady_clock;

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Bench {
  std::filesystem::path dir;
  int walkers = 16;
  std::int64_t steps = 500;
  std::int64_t stride = 50;

  OpenMMEngine engine(Reproducibility r) const {
    trails::config::OpenMMEngineConfig c;
    c.platform_name = env_or("TRAILS_BENCH_PLATFORM", "OpenCL");
    c.precision = env_or("TRAILS_BENCH_PRECISION", "single");
    c.reproducibility = r;
    return OpenMMEngine(c, trails::engines::openmm::load_prepared_system(dir));
  }

  SegmentTask task(const OpenMMEngine& e, std::uint64_t seed, std::int64_t n_steps,
                   std::int64_t n_stride) const {
    SegmentTask t;
    t.task_id = t.walker = static_cast<std::int64_t>(seed);
    t.start = e.default_start();
    t.steps = n_steps;
    t.stride = n_stride;
    t.seed = seed;
    return t;
  }

  SegmentResult run(EngineInstance& slot, const SegmentTask& t) const {
    SegmentResult r = slot.run(t);
    if (!r.ok()) {
      std::fprintf(stderr, "walker failed: %s\n", r.error.c_str());
      std::exit(1);
    }
    return r;
  }

  // Campaign walkers on one warm slot: the first builds the Context; start-up of the others.
  nlohmann::json walkers_on_one_slot(Reproducibility r, int n) const {
    const OpenMMEngine e = engine(r);
    auto slot = e.make_instance(Slot{0, 0, 0});
    std::vector<double> rearm;
    double first = 0.0;
    const auto t0 = Clock::now();
    for (int w = 0; w < n; ++w) {
      const SegmentResult res = run(*slot, task(e, 1000 + w, steps, stride));
      if (w == 0) {
        first = res.startup_s;
      } else {
        rearm.push_back(res.startup_s);
      }
    }
    return {{"walkers", n},
            {"wall_s", seconds_since(t0)},
            {"first_startup_s", first},
            {"median_rearm_s", median(rearm)}};
  }

  // A swarm cycle's engine work: 16 trials of 20 steps from one anchor, on one warm slot; cycle 0
  // builds the Context, the median of cycles 1-3 is reported.
  nlohmann::json swarm_cycles(Reproducibility r) const {
    const OpenMMEngine e = engine(r);
    auto slot = e.make_instance(Slot{0, 0, 0});
    std::vector<double> cycle_s, trial_startup;
    for (int cycle = 0; cycle < 4; ++cycle) {
      const auto t0 = Clock::now();
      for (int trial = 0; trial < 16; ++trial) {
        const SegmentResult res = run(*slot, task(e, 100 * cycle + trial + 1, 20, 20));
        if (cycle > 0) trial_startup.push_back(res.startup_s);
      }
      if (cycle > 0) cycle_s.push_back(seconds_since(t0));
    }
    return {{"median_cycle_s", median(cycle_s)}, {"median_trial_startup_s", median(trial_startup)}};
  }

  // k Contexts on device 0, one thread each, 8 walkers of 2000 steps in all; Contexts built
  // (and each run once) before the clock starts.
  double aggregate_steps_per_s(int k) const {
    const OpenMMEngine e = engine(Reproducibility::Auto);
    std::vector<std::unique_ptr<EngineInstance>> slots;
    for (int i = 0; i < k; ++i) {
      slots.push_back(e.make_instance(Slot{i, 0, i}));
      run(*slots.back(), task(e, 9000 + i, stride, stride));
    }
    constexpr int kWalkers = 8;
    constexpr std::int64_t kSteps = 2000;
    const auto t0 = Clock::now();
    std::vector<std::thread> threads;
    for (int i = 0; i < k; ++i) {
      threads.emplace_back([&, i] {
        for (int w = i; w < kWalkers; w += k) run(*slots[i], task(e, 500 + w, kSteps, stride));
      });
    }
    for (auto& t : threads) t.join();
    return kWalkers * kSteps / seconds_since(t0);
  }
};

}  // namespace

int main(int argc, char** argv) {
  Bench b;
  b.dir = argc > 1 ? argv[1]
                   : std::filesystem::path(TRAILS_SOURCE_DIR) / "tests/data/openmm/alad-vacuum";
  if (argc > 2) b.walkers = std::atoi(argv[2]);
  if (argc > 3) b.steps = std::atoll(argv[3]);
  if (argc > 4) b.stride = std::atoll(argv[4]);
  // PoCL compiles its kernels at first use and caches them: pay that before any clock runs.
  (void)b.walkers_on_one_slot(Reproducibility::Fast, 2);
  nlohmann::json out;
  out["platform"] = env_or("TRAILS_BENCH_PLATFORM", "OpenCL");
  out["precision"] = env_or("TRAILS_BENCH_PRECISION", "single");
  out["steps"] = b.steps;
  out["stride"] = b.stride;
  out["fast"] = b.walkers_on_one_slot(Reproducibility::Fast, b.walkers);
  out["bitwise"] = b.walkers_on_one_slot(Reproducibility::Bitwise, b.walkers);
  out["swarm_fast"] = b.swarm_cycles(Reproducibility::Fast);
  out["swarm_bitwise"] = b.swarm_cycles(Reproducibility::Bitwise);
  out["trails_walker_phase"] = b.walkers_on_one_slot(Reproducibility::Auto, 2 * b.walkers);
  for (int k : {1, 2, 4}) out["steps_per_s"][std::to_string(k)] = b.aggregate_steps_per_s(k);
  std::printf("%s\n", out.dump(2).c_str());
  return 0;
}
