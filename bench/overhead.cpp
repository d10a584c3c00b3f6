// bench/overhead: orchestration cost of the campaign loop on the built-in engine.
//  Part 1: 64 walkers × 100 frames, 2-D Müller–Brown, synthetic_cost_ms 0, N iterations (1000):
//          orchestration (analysis_s: everything but MD, commit included) at iterations 10, 100,
//          1000 (mean over the 10 iterations ending there) and the ratio 1000/10; peak RSS then.
//  Part 2: the same with synthetic_cost_ms set so that MD takes about 1 s per iteration:
//          Σ analysis_s ÷ Σ runner_s (Trails-MD measures 4–7 % on small systems).
// Usage: bench_overhead [ITERATIONS=1000] [COST_ITERATIONS=15] [WORKDIR=/tmp]
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "trails/campaign/campaign.h"
#include "trails/config/load.h"

namespace fs = std::filesystem;
using namespace trails;

namespace {

long peak_rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

struct Recorder final : campaign::ProgressSink {
  std::vector<double> runner, analysis;
  std::vector<long> rss;
  void started(const std::vector<std::string>&) override {}
  void iteration(const campaign::IterationReport& r) override {
    runner.push_back(r.runner_s);
    analysis.push_back(r.analysis_s);
    rss.push_back(peak_rss_kib());
    if ((r.iteration + 1) % 100 == 0) {
      std::fprintf(stderr, "  iteration %lld: analysis %.4f s\n", static_cast<long long>(r.iteration + 1),
                   r.analysis_s);
    }
  }
  void finished(const campaign::CampaignOutcome&) override {}
  double mean_analysis_ending_at(std::size_t it) const {  // iterations (it-9 .. it), 1-based
    const std::size_t lo = it >= 10 ? it - 10 : 0;
    return std::accumulate(analysis.begin() + lo, analysis.begin() + it, 0.0) / double(it - lo);
  }
};

fs::path write_config(const fs::path& dir, double cost_ms, int workers) {
  fs::create_directories(dir);
  const fs::path file = dir / "bench.yaml";
  std::ofstream(file) << fmt::format(R"(outdir: run
random_seed: 42
n_bins: [30, 30]
min_values: [-1.5, -0.5]
max_values: [1.2, 2.0]
space_mode: fixed
system:
  start: [-0.558, 1.442]
engine:
  md_engine: builtin
  potential: muller_brown
  integrator: overdamped
  kT: 15.0
  dt: 0.0001
  synthetic_cost_ms: {}
spawning:
  walker: 64
  step: 1000
  stride: 10
  max_workers: {}
  spawn_scheme: density
  spawn_type: hard
)",
                                     cost_ms, workers);
  return file;
}

Recorder run(const fs::path& file, int iterations) {
  const auto config = config::load_campaign_config(file);
  fs::remove_all(config.outdir);
  campaign::RunOptions options;
  options.target_iterations = iterations;
  Recorder rec;
  campaign::run_campaign(config, options, rec);
  return rec;
}

}  // namespace

int main(int argc, char** argv) {
  const int iterations = argc > 1 ? std::stoi(argv[1]) : 1000;
  const int cost_iterations = argc > 2 ? std::stoi(argv[2]) : 15;
  const fs::path work = fs::path(argc > 3 ? argv[3] : "/tmp") / fmt::format("trails-bench-{}", ::getpid());

  std::fprintf(stderr, "part 1: %d iterations, 64 walkers x 100 frames, synthetic cost 0\n", iterations);
  const auto flat = run(write_config(work / "flat", 0.0, 2), iterations);
  fmt::print("# bench/overhead (built-in engine, Müller–Brown 2-D, 64 walkers × 100 frames)\n");
  fmt::print("part 1: orchestration time per iteration (analysis_s incl. commit, mean of 10)\n");
  fmt::print("{:>10} {:>14} {:>14} {:>14}\n", "iteration", "analysis_s", "runner_s", "peak_rss_MiB");
  std::vector<std::size_t> marks = {10, 100, 1000};
  for (auto m : marks) {
    if (m > flat.analysis.size()) continue;
    const double runner = std::accumulate(flat.runner.begin() + (m - 10), flat.runner.begin() + m, 0.0) / 10;
    fmt::print("{:>10} {:>14.6f} {:>14.6f} {:>14.1f}\n", m, flat.mean_analysis_ending_at(m), runner,
               flat.rss[m - 1] / 1024.0);
  }
  const std::size_t last = std::min<std::size_t>(1000, flat.analysis.size());
  fmt::print("ratio orchestration({}) / orchestration(10) = {:.3f}   (goal: flat, <= 1.1)\n", last,
             flat.mean_analysis_ending_at(last) / flat.mean_analysis_ending_at(10));
  fmt::print("ratio peak RSS({}) / peak RSS(10) = {:.3f}\n", last,
             double(flat.rss[last - 1]) / double(flat.rss[9]));

  // ~1 s of MD per iteration: 64 walkers on 4 workers, 16 rounds of the synthetic cost each.
  const double cost_ms = 1000.0 / 16.0;
  std::fprintf(stderr, "part 2: %d iterations, synthetic cost %.1f ms per walker\n", cost_iterations, cost_ms);
  const auto slow = run(write_config(work / "slow", cost_ms, 4), cost_iterations);
  const double runner = std::accumulate(slow.runner.begin(), slow.runner.end(), 0.0);
  const double analysis = std::accumulate(slow.analysis.begin(), slow.analysis.end(), 0.0);
  fmt::print("part 2: synthetic_cost_ms {:.1f} → MD {:.3f} s per iteration\n", cost_ms,
             runner / slow.runner.size());
  fmt::print("ratio analysis_s / runner_s = {:.4f} ({:.2f} %)   (goal <= 1 %; Trails-MD 4-7 %)\n",
             analysis / runner, 100 * analysis / runner);
  fs::remove_all(work);
  return 0;
}
