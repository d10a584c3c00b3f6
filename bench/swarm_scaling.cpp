// The swarm's device scaling (docs/performance.md, "Swarm scaling": PathGennie's scaling
// workload): built-in engine with engine.synthetic_cost_ms (a sleep, so 8
// "devices" fit on 2 cores), 16 trials, 20 cycles, τ1 = τ2 = 1, σ = 0.1, seed 0, escape mode on
// cv0 (never converges), 1/2/4/8 devices with one worker each. Prints wall time, cycles/s,
// speedup over 1 device and speedup ÷ the ideal (N+1)/(⌈N/G⌉+1); then `paths: 4` on 8 devices:
// aggregate cycles/s ÷ one chain on one device. Not a test: no assertion.
// Usage: bench_swarm_scaling [COST_MS=15] [CYCLES=20] [TRIALS=16]
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include <fmt/format.h>

#include "trails/config/swarm_config.h"
#include "trails/swarm/swarm_driver.h"

namespace {

namespace fs = std::filesystem;
using namespace trails;

class Quiet final : public swarm::SwarmProgress {
 public:
  void started(const std::vector<std::string>&) override {}
  void cycle(const swarm::CycleReport&) override {}
  void finished(const swarm::SwarmOutcome&) override {}
};

// Seconds of the swarm loop (engine and store set-up not included, as PathGennie times run()) and
// the cycles it committed.
std::pair<double, std::int64_t> time_swarm(const fs::path& dir, double cost_ms, int cycles,
                                           int trials, int devices, int paths) {
  const fs::path run = dir / fmt::format("g{}-k{}", devices, paths);
  fs::remove_all(run);
  std::string list;
  for (int d = 0; d < devices; ++d) list += (d ? ", " : "") + std::to_string(d);
  const fs::path yaml = dir / "input.yaml";
  std::ofstream(yaml) << fmt::format(
      "workdir: {}\npathgennie:\n  mode: escape\n  escape_metric: cv0\n  max_trial: {}\n"
      "  tau1_steps: 1\n  tau2_steps: 1\n  max_cycle: {}\n  sigma: 0.1\n  seed: 0\n"
      "  devices: [{}]\n  workers_per_device: 1\n  paths: {}\n"
      "engine:\n  md_engine: builtin\n  potential: harmonic\n  dimension: 3\n  kT: 1.0\n"
      "  dt: 0.01\n  synthetic_cost_ms: {}\n",
      run.string(), trials, cycles, list, paths, cost_ms);
  const auto config = config::load_swarm_config(yaml);
  Quiet quiet;
  const auto outcome = swarm::run_swarm(config, false, quiet);
  return {outcome.loop_s, outcome.cycles_run};
}

}  // namespace

int main(int argc, char** argv) {
  const double cost_ms = argc > 1 ? std::stod(argv[1]) : 15.0;
  const int cycles = argc > 2 ? std::stoi(argv[2]) : 20;
  const int trials = argc > 3 ? std::stoi(argv[3]) : 16;
  const fs::path dir = fs::temp_directory_path() / fmt::format("trails-swarm-bench-{}", ::getpid());
  fs::create_directories(dir);
  fmt::print("swarm scaling: {} trials, {} cycles, tau1 = tau2 = 1, synthetic cost {} ms\n", trials,
             cycles, cost_ms);
  fmt::print("{:>8} {:>10} {:>10} {:>9} {:>9} {:>10}\n", "devices", "wall (s)", "cycles/s",
             "speedup", "ideal", "of ideal");
  double base = 0.0;
  for (int g : {1, 2, 4, 8}) {
    const auto [s, n] = time_swarm(dir, cost_ms, cycles, trials, g, 1);
    const double rate = static_cast<double>(n) / s;
    if (g == 1) base = rate;
    const int waves = (trials + g - 1) / g;  // ⌈N/G⌉ rounds of trials, then the extension
    const double ideal = static_cast<double>(trials + 1) / static_cast<double>(waves + 1);
    fmt::print("{:>8} {:>10.3f} {:>10.2f} {:>8.2f}x {:>8.2f}x {:>10.3f}\n", g, s, rate, rate / base,
               ideal, rate / base / ideal);
  }
  const auto [s4, n4] = time_swarm(dir, cost_ms, cycles, trials, 8, 4);
  const double rate4 = static_cast<double>(n4) / s4;
  fmt::print(
      "paths: 4 on 8 devices: {:.3f} s, {:.2f} cycles/s aggregate = {:.2f}x one chain on "
      "one device\n",
      s4, rate4, rate4 / base);
  fs::remove_all(dir);
  return 0;
}
