// bench/overhead: orchestration cost of the campaign loop on the built-in engine.
//  Part 1: fixed 30×30 grid, 64 walkers × 100 frames, 2-D Müller–Brown, synthetic_cost_ms 0, N
//  iterations (1000):
//          orchestration (analysis_s: everything but MD, commit included) at iterations 10, 100,
//          1000 (mean over the 10 iterations ending there) and the ratio 1000/10; peak RSS then.
//  Part 2: the same with synthetic_cost_ms set so that MD takes about 1 s per iteration:
//          Σ analysis_s ÷ Σ runner_s (Trails-MD measures 4–7 % on small systems).
// Usage: bench_overhead [ITERATIONS=1000] [COST_ITERATIONS=15] [WORKDIR=/tmp] [PER_ITERATION.tsv]
#include <unistd.h>

#include <algorithm>
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
  std::vector<double> runner, analysis, compute;  // compute = analysis without the commit
  std::vector<long> rss;
  void started(const std::vector<std::string>&) override {}
  void iteration(const campaign::IterationReport& report) override {
    const auto& r = report.summary;
    runner.push_back(r.runner_s);
    analysis.push_back(r.analysis_s);
    compute.push_back(r.analysis_s - report.commit_s);
    rss.push_back(peak_rss_kib());
    if ((r.iteration + 1) % 100 == 0) {
      std::fprintf(stderr, "  iteration %lld: analysis %.4f s\n",
                   static_cast<long long>(r.iteration + 1), r.analysis_s);
    }
  }
  void finished(const campaign::CampaignOutcome&) override {}
  // Median over the 21 iterations centred on `it` (1-based): robust to the few iterations in
  // which the grid is refined and history re-binned (reported separately).
  double median_analysis_around(std::size_t it) const { return median_around(analysis, it); }
  static double median_around(const std::vector<double>& v, std::size_t it) {
    const std::size_t lo = it > 11 ? it - 11 : 0;
    const std::size_t hi = std::min(v.size(), lo + 21);
    std::vector<double> w(v.begin() + lo, v.begin() + hi);
    std::nth_element(w.begin(), w.begin() + w.size() / 2, w.end());
    return w[w.size() / 2];
  }
};

fs::path write_config(const fs::path& dir, double cost_ms, int workers, int check_patience = 5) {
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
  resolution_check_patience: {}
)",
                                     cost_ms, workers, check_patience);
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
  const fs::path work =
      fs::path(argc > 3 ? argv[3] : "/tmp") / fmt::format("trails-bench-{}", ::getpid());

  std::fprintf(stderr, "part 1: %d iterations, 64 walkers x 100 frames, synthetic cost 0\n",
               iterations);
  // Fixed 30×30 grid (resolution ladder off) isolates the dependence on campaign length.
  const auto flat = run(write_config(work / "flat", 0.0, 2, 0), iterations);
  if (argc > 4) {
    std::ofstream tsv(argv[4]);
    tsv << "iteration\trunner_s\tanalysis_s\tpeak_rss_kib\n";
    for (std::size_t i = 0; i < flat.analysis.size(); ++i) {
      tsv << i << '\t' << flat.runner[i] << '\t' << flat.analysis[i] << '\t' << flat.rss[i] << '\n';
    }
  }
  fmt::print("# bench/overhead (built-in engine, Müller–Brown 2-D, 64 walkers × 100 frames)\n");
  fmt::print(
      "part 1: fixed 30x30 grid; orchestration per iteration (analysis_s incl. commit; median of "
      "21)\n");
  fmt::print("{:>10} {:>14} {:>14} {:>14} {:>14}\n", "iteration", "analysis_s", "w/o_commit_s",
             "runner_s", "peak_rss_MiB");
  const std::size_t last = std::min<std::size_t>(1000, flat.analysis.size());
  for (std::size_t m : {std::size_t{10}, std::size_t{100}, last}) {
    if (m > flat.analysis.size() || (m == last && m <= 100)) continue;
    fmt::print("{:>10} {:>14.6f} {:>14.6f} {:>14.6f} {:>14.1f}\n", m,
               flat.median_analysis_around(m), Recorder::median_around(flat.compute, m),
               flat.runner[m - 1], flat.rss[m - 1] / 1024.0);
  }
  fmt::print("ratio orchestration({}) / orchestration(10) = {:.3f}   (goal: flat, <= 1.1)\n", last,
             flat.median_analysis_around(last) / flat.median_analysis_around(10));
  fmt::print(
      "ratio without the commit ({}) / (10) = {:.3f}\n", last,
      Recorder::median_around(flat.compute, last) / Recorder::median_around(flat.compute, 10));
  fmt::print("ratio peak RSS({}) / peak RSS(10) = {:.3f}\n", last,
             double(flat.rss[last - 1]) / double(flat.rss[9]));
  // The same with Trails-MD's default resolution ladder: per-iteration cost then also follows
  // the grid (more distinct bins touched per iteration), and each refinement re-bins history.
  std::fprintf(stderr, "part 1b: %d iterations with the resolution ladder\n", iterations);
  const auto ladder = run(write_config(work / "ladder", 0.0, 2, 5), iterations);
  fmt::print("part 1b: with the resolution ladder (30 -> 150 bins per axis)\n");
  for (std::size_t m : {std::size_t{10}, std::size_t{100}, last}) {
    if (m > ladder.analysis.size() || (m == last && m <= 100)) continue;
    fmt::print("{:>10} {:>14.6f}\n", m, ladder.median_analysis_around(m));
  }
  fmt::print("ratio orchestration({}) / orchestration(10) = {:.3f}\n", last,
             ladder.median_analysis_around(last) / ladder.median_analysis_around(10));
  {
    const double typ = ladder.median_analysis_around(last);
    double refine = 0.0;
    fmt::print("grid refinements (iteration:seconds):");
    for (std::size_t i = 0; i < ladder.analysis.size(); ++i) {
      if (ladder.analysis[i] > 10 * typ) {
        fmt::print(" {}:{:.3f}", i + 1, ladder.analysis[i]);
        refine += ladder.analysis[i];
      }
    }
    const double all = std::accumulate(ladder.analysis.begin(), ladder.analysis.end(), 0.0);
    fmt::print("\n  refinements are {:.1f} % of all orchestration time\n", 100 * refine / all);
  }

  // ~1 s of MD per iteration: 64 walkers on 4 workers, 16 rounds of the synthetic cost each.
  const double cost_ms = 1000.0 / 16.0;
  std::fprintf(stderr, "part 2: %d iterations, synthetic cost %.1f ms per walker\n",
               cost_iterations, cost_ms);
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
