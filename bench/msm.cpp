// bench/msm: the MSM and TICA numerics on a 10^6-frame trajectory set, and the per-iteration
// cost of the in-loop MSM at iteration 10 vs 500 of a built-in campaign. Not a test.
//
// Workload (rerunnable against other tools; all randomness from trails::core::Rng, seed 2024):
//  * Discrete chain: 500 states on x_i = -2 + 4 (i + 0.5) / 500 of the double well
//    V(x) = 4 (x^2 - 1)^2 at kT = 1; Metropolis nearest-neighbour moves (propose i +- 1 with
//    probability 1/2 each, accept min(1, exp(-(V_j - V_i)/kT)), reflect at the ends), so the
//    chain is reversible with pi ~ exp(-V/kT). 100 trajectories x 10^4 frames, each starting
//    from a uniform state (stream "bench-msm-start", t), steps from stream "bench-msm", t.
//  * CV points for clustering (10^6 x 2): (x_state + 0.004 N(0,1), N(0,1) * 0.1), stream
//    "bench-msm-cv", t.
//  * Features for TICA (10^6 x 50): f_j = sin((j + 1) x) + 0.1 N(0,1), stream "bench-msm-feat",
//    t, generated per trajectory (never 10^6 x 50 in memory).
// Phases: k-means k = 500 (k-means++ seeds + KMEANS_ITERS Lloyd iterations, threads = all),
// assignment, sliding counts at lag 10 of the chain's own state ids (not the k-means labels),
// largest connected set, reversible MLE (tol 1e-12; Newton, then the same MLE by the plain
// sparse fixed-point iteration for comparison), 10 timescales, ITS sweep over lags
// 1,2,5,10,20,50,100,200,500,1000 (parallel across lags, threads = all), TICA at lag 10 (running
// moments per trajectory, then the eigenproblem). Each phase: wall time and the growth of the
// peak RSS (VmHWM) during it.
// `--export DIR` also writes the workload for other tools (bench/msm_reference.py):
// DIR/dtraj_NNN.npy (100 int32 trajectories), DIR/counts_lag10.npy (500 x 500 float64 sliding
// counts), DIR/active_set.npy (int32), DIR/trails_T_lag10.npy (float64, active x active),
// DIR/trails_pi_lag10.npy (float64, 1 x active),
// DIR/trails_mle.json (timings, iterations).
// Campaign: built-in Müller–Brown, 16 walkers x 50 frames, msm enabled (n_microstates 50, lag 5,
// ITS ladder 1,2,5), 500 iterations; from the ledger: MSM build time at iterations 5–15 and
// 490–500 (medians, refit builds excluded and counted), analysis_s of the same iterations.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "trails/analysis/clustering.h"
#include "trails/analysis/counting.h"
#include "trails/analysis/moments.h"
#include "trails/analysis/msm_estimation.h"
#include "trails/analysis/spectral.h"
#include "trails/analysis/tica.h"
#include "trails/campaign/campaign.h"
#include "trails/config/load.h"
#include "trails/core/rng.h"
#include "trails/store/run_store.h"

namespace fs = std::filesystem;
using namespace trails;
using Clock = std::chrono::steady_clock;

namespace {

long peak_rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

struct Phase {
  std::string name;
  double seconds;
  long rss_growth_kib;
  std::string note;
};

template <class F>
Phase timed(const std::string& name, F&& f) {
  const long before = peak_rss_kib();
  const auto t0 = Clock::now();
  std::string note = f();
  Phase p{name, std::chrono::duration<double>(Clock::now() - t0).count(), peak_rss_kib() - before,
          note};
  std::fprintf(stderr, "  %s: %.3f s, +%.1f MiB, %s\n", p.name.c_str(), p.seconds,
               p.rss_growth_kib / 1024.0, p.note.c_str());
  return p;
}

// .npy version 1.0 writer: little-endian int32 or float64, C order.
void write_npy(const fs::path& file, const void* data, std::size_t bytes, const char* descr,
               const std::string& shape) {
  std::string header =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, shape);
  header.append(64 - (10 + header.size() + 1) % 64, ' ');
  header.push_back('\n');
  std::ofstream out(file, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const auto len = static_cast<std::uint16_t>(header.size());
  const char len_bytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
  out.write(len_bytes, 2);
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

void write_npy(const fs::path& file, const std::vector<int>& v) {
  std::vector<std::int32_t> w(v.begin(), v.end());
  write_npy(file, w.data(), w.size() * 4, "<i4", fmt::format("({},)", w.size()));
}

void write_npy(const fs::path& file, const Eigen::MatrixXd& m) {
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> r = m;
  write_npy(file, r.data(), static_cast<std::size_t>(r.size()) * 8, "<f8",
            fmt::format("({}, {})", r.rows(), r.cols()));
}

constexpr int kStates = 500, kTrajs = 100, kFrames = 10000;

double xs(int i) { return -2.0 + 4.0 * (i + 0.5) / kStates; }
double V(double x) { return 4.0 * (x * x - 1) * (x * x - 1); }

struct Campaign {
  double build_early = 0, build_late = 0, analysis_early = 0, analysis_late = 0;
  int refits = 0;
};

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// extra: further msm: lines (e.g. the Bayesian estimator, PCCA+), two-space indented.
Campaign campaign_cost(int iterations, const std::string& extra) {
  const fs::path dir = fs::temp_directory_path() / "trails-bench-msm";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path file = dir / "bench.yaml";
  std::ofstream(file) << R"(outdir: run
random_seed: 42
n_bins: [30, 30]
min_values: [-1.5, -0.5]
max_values: [1.2, 2.0]
system:
  start: [-0.558, 1.442]
engine:
  md_engine: builtin
  potential: muller_brown
  kT: 15.0
  dt: 0.0001
spawning:
  walker: 16
  step: 500
  stride: 10
  max_workers: 2
msm:
  enabled: true
  min_frames: 500
  n_microstates: 50
  lagtime: 5
  lagtimes: [1, 2, 5]
  convergence_patience: 0
)" << extra;
  const auto config = config::load_campaign_config(file);
  struct Quiet final : campaign::ProgressSink {
    void started(const std::vector<std::string>&) override {}
    void iteration(const campaign::IterationReport& r) override {
      if ((r.summary.iteration + 1) % 100 == 0) {
        std::fprintf(stderr, "  campaign iteration %lld\n",
                     static_cast<long long>(r.summary.iteration + 1));
      }
    }
    void finished(const campaign::CampaignOutcome&) override {}
  } quiet;
  campaign::RunOptions options;
  options.target_iterations = iterations;
  campaign::run_campaign(config, options, quiet);
  const auto store = store::RunStore::open(config.outdir, store::RunStore::Mode::ReadOnly);
  const auto builds = store.msm_builds();
  const auto sums = store.summaries();
  Campaign c;
  std::vector<double> early, late, aearly, alate;
  for (const auto& b : builds) {
    if (b.model.value("refit", false)) {
      ++c.refits;
      continue;
    }
    if (b.iteration >= 5 && b.iteration <= 15) early.push_back(b.build_s);
    if (b.iteration >= iterations - 11) late.push_back(b.build_s);
  }
  for (const auto& s : sums) {
    if (s.iteration >= 5 && s.iteration <= 15) aearly.push_back(s.analysis_s);
    if (s.iteration >= iterations - 11) alate.push_back(s.analysis_s);
  }
  c.build_early = median(early);
  c.build_late = median(late);
  c.analysis_early = median(aearly);
  c.analysis_late = median(alate);
  fs::remove_all(dir);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  // `bench_msm [KMEANS_ITERS] [CAMPAIGN_ITERATIONS] [--export DIR]`; `bench_msm campaign [N]
  // [--bayesian] [--pcca M]`: only the in-loop campaign part (optionally with the Bayesian
  // estimator, 50 samples, and/or PCCA+ with M sets).
  std::vector<std::string> args;
  fs::path export_dir;
  std::string extra;
  for (int a = 1; a < argc; ++a) {
    if (std::string(argv[a]) == "--export" && a + 1 < argc) {
      export_dir = argv[++a];
    } else if (std::string(argv[a]) == "--bayesian") {
      extra += "  estimator: bayesian\n  n_bayesian_samples: 50\n";
    } else if (std::string(argv[a]) == "--pcca" && a + 1 < argc) {
      extra += fmt::format("  n_metastable: {}\n", argv[++a]);
    } else {
      args.emplace_back(argv[a]);
    }
  }
  const bool campaign_only = !args.empty() && args[0] == "campaign";
  const int kmeans_iters = !args.empty() && !campaign_only ? std::stoi(args[0]) : 10;
  const int campaign_iterations = args.size() > 1 ? std::stoi(args[1]) : 500;
  spdlog::set_level(spdlog::level::warn);  // the in-loop MSM logs every build at info
  const int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<Phase> phases;
  if (campaign_only) {
    const int n = campaign_iterations;
    const auto c = campaign_cost(n, extra);
    std::printf("| in-loop MSM | iterations 5–15 | iterations %d–%d |\n|---|---|---|\n", n - 11,
                n - 1);
    std::printf("| MSM build, median, refits excluded (s) | %.5f | %.5f |\n", c.build_early,
                c.build_late);
    std::printf("| analysis_s, median (s) | %.5f | %.5f |\n", c.analysis_early, c.analysis_late);
    std::printf("refit builds over the campaign: %d\n", c.refits);
    return 0;
  }

  std::vector<std::vector<int>> dtrajs(kTrajs);
  std::vector<double> points;
  phases.push_back(timed("generate 100 x 10^4 chain + 10^6 x 2 CVs", [&] {
    points.reserve(static_cast<std::size_t>(kTrajs) * kFrames * 2);
    for (int t = 0; t < kTrajs; ++t) {
      core::Rng start = core::Rng::stream(2024, "bench-msm-start", t);
      core::Rng step = core::Rng::stream(2024, "bench-msm", t);
      core::Rng cv = core::Rng::stream(2024, "bench-msm-cv", t);
      int s = static_cast<int>(start.below(kStates));
      auto& d = dtrajs[t];
      d.reserve(kFrames);
      for (int f = 0; f < kFrames; ++f) {
        d.push_back(s);
        points.push_back(xs(s) + 0.004 * cv.normal());
        points.push_back(0.1 * cv.normal());
        const int j = step.uniform() < 0.5 ? s - 1 : s + 1;
        const double u = step.uniform();
        if (j >= 0 && j < kStates && u < std::exp(-(V(xs(j)) - V(xs(s))))) s = j;
      }
    }
    return std::string();
  }));

  const auto view = analysis::points_view(points, static_cast<Eigen::Index>(points.size() / 2), 2);
  analysis::ClusterModel model;
  phases.push_back(timed(
      fmt::format("k-means k=500 on 10^6 x 2 ({} Lloyd it., {} threads)", kmeans_iters, threads),
      [&] {
        analysis::KMeansOptions o;
        o.k = kStates;
        o.max_iter = kmeans_iters;
        o.seed = 2024;
        o.n_threads = threads;
        model = analysis::kmeans(view, o);
        return fmt::format("{} iterations, inertia {:.6g}", model.iterations, model.inertia);
      }));
  phases.push_back(timed(fmt::format("assign 10^6 x 2 to 500 centres ({} threads)", threads), [&] {
    const auto labels = analysis::assign(model, view, threads);
    return fmt::format("{} labels", labels.size());
  }));
  Eigen::MatrixXd C;
  phases.push_back(timed("sliding counts at lag 10 (500 states)", [&] {
    C = analysis::count_matrix(dtrajs, 10, kStates);
    return fmt::format("{} pairs", C.sum());
  }));
  std::vector<int> set;
  Eigen::MatrixXd Cs;
  phases.push_back(timed("largest connected set + restrict", [&] {
    set = analysis::largest_connected_set(C);
    Cs = analysis::restrict_to_set(C, set);
    return fmt::format("{} active states, {} nonzero counts", set.size(), (Cs.array() > 0).count());
  }));
  analysis::ReversibleMle mle;
  double mle_best = INFINITY;
  phases.push_back(timed("reversible MLE, Newton + fixed-point test (tol 1e-12), 5 runs", [&] {
    for (int rep = 0; rep < 5; ++rep) {
      const auto t0 = Clock::now();
      mle = analysis::reversible_mle(Cs);
      mle_best = std::min(mle_best, std::chrono::duration<double>(Clock::now() - t0).count());
    }
    return fmt::format(
        "best of 5: {:.4f} s; {} Newton steps + {} fixed-point updates, converged {}", mle_best,
        mle.newton_steps, mle.iterations - mle.newton_steps, mle.converged);
  }));
  analysis::ReversibleMle plain;
  phases.push_back(timed("reversible MLE, plain sparse fixed point (same test, tol 1e-12)", [&] {
    plain = analysis::reversible_mle(
        Cs,
        analysis::ReversibleMleOptions{1e-12, 10000000, analysis::ReversibleMleMethod::FixedPoint});
    return fmt::format("{} updates, converged {}, max abs(T - T_Newton) = {:.2e}", plain.iterations,
                       plain.converged, (plain.T - mle.T).cwiseAbs().maxCoeff());
  }));
  phases.push_back(timed("10 implied timescales of the MLE", [&] {
    const auto ts = analysis::implied_timescales(mle.T, mle.pi, 10, 10);
    return fmt::format("t2 = {:.6g} frames", ts(0));
  }));
  if (!export_dir.empty()) {
    fs::create_directories(export_dir);
    for (int t = 0; t < kTrajs; ++t)
      write_npy(export_dir / fmt::format("dtraj_{:03d}.npy", t), dtrajs[t]);
    write_npy(export_dir / "counts_lag10.npy", C);
    write_npy(export_dir / "active_set.npy", set);
    write_npy(export_dir / "trails_T_lag10.npy", mle.T);
    write_npy(export_dir / "trails_pi_lag10.npy", Eigen::MatrixXd(mle.pi.transpose()));
    std::ofstream(export_dir / "trails_mle.json") << fmt::format(
        "{{\"lag\": 10, \"n_active\": {}, \"tol\": 1e-12, \"best_seconds\": {:.9g}, "
        "\"newton_steps\": {}, \"iterations\": {}, \"converged\": {}, "
        "\"plain_fixed_point_iterations\": {}}}\n",
        set.size(), mle_best, mle.newton_steps, mle.iterations, mle.converged, plain.iterations);
    std::fprintf(stderr, "  exported the workload to %s\n", export_dir.c_str());
  }
  const std::vector<int> lags = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
  phases.push_back(timed(
      fmt::format("ITS sweep, 10 lags (1..1000), 10 timescales, parallel ({} threads)", threads),
      [&] {
        const auto sweep = analysis::implied_timescales_sweep(
            dtrajs, lags, 10, kStates, analysis::CountMode::Sliding, {}, threads);
        return fmt::format("t2(lag 1) = {:.6g}, t2(lag 1000) = {:.6g}", sweep.timescales(0, 0),
                           sweep.timescales(9, 0));
      }));
  phases.push_back(timed("TICA lag 10 on 10^6 x 50 (moments per trajectory + fit)", [&] {
    analysis::RunningMoments moments(50, 10);
    analysis::FrameMatrix feat(kFrames, 50);
    for (int t = 0; t < kTrajs; ++t) {
      core::Rng noise = core::Rng::stream(2024, "bench-msm-feat", t);
      for (int f = 0; f < kFrames; ++f) {
        const double x = xs(dtrajs[t][f]);
        for (int j = 0; j < 50; ++j) feat(f, j) = std::sin((j + 1) * x) + 0.1 * noise.normal();
      }
      moments.add_segment(feat);
    }
    const auto tica = analysis::fit_tica(moments);
    return fmt::format("rank {}, lambda_1 = {:.6g}", tica.rank, tica.eigenvalues(0));
  }));

  std::printf("| phase | wall time (s) | peak RSS growth (MiB) | result |\n|---|---|---|---|\n");
  for (const auto& p : phases) {
    std::printf("| %s | %.3f | %.1f | %s |\n", p.name.c_str(), p.seconds, p.rss_growth_kib / 1024.0,
                p.note.c_str());
  }
  std::printf("\npeak RSS of the process: %.1f MiB\n", peak_rss_kib() / 1024.0);
  if (campaign_iterations > 0) {
    const auto c = campaign_cost(campaign_iterations, extra);
    std::printf(
        "\n| in-loop MSM (Müller–Brown, 16 walkers x 50 frames, k = 50) | iterations 5–15 | "
        "iterations %d–%d |\n|---|---|---|\n",
        campaign_iterations - 11, campaign_iterations - 1);
    std::printf("| MSM build, median, refits excluded (s) | %.5f | %.5f |\n", c.build_early,
                c.build_late);
    std::printf("| analysis_s, median (s) | %.5f | %.5f |\n", c.analysis_early, c.analysis_late);
    std::printf("refit builds over the campaign: %d\n", c.refits);
  }
  return 0;
}
