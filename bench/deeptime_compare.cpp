// bench/deeptime_compare: Trails' analysis kernels on deeptime's own workloads a-e
// (tests/data/deeptime/REFERENCE-README.md; inputs from tests/data/deeptime/generate_inputs.py),
// at 1 and 2 threads, next to deeptime's best-of-3 timings. Not a test: prints a table
// (docs/performance.md, "Against deeptime"). Usage:
//   bench_deeptime_compare INPUT_DIR [REPS=3] [ROWS]
// INPUT_DIR holds dtraj.npy and dw2d.npy, and optionally feat50.npy (the TICA rows, the kernel
// and the campaign's call sequence of spaces/space_stage.h, are skipped without it). ROWS: run
// only the rows whose name contains it (e.g. "(d)"). Each figure is the best of REPS runs of
// exactly the call deeptime timed.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "trails/analysis/clustering.h"
#include "trails/analysis/moments.h"
#include "trails/analysis/msm_model.h"
#include "trails/analysis/pcca.h"
#include "trails/analysis/reversible_moments.h"
#include "trails/analysis/spectral.h"
#include "trails/analysis/tica.h"
#include "trails/core/npy.h"
#include "trails/core/thread_pool.h"
#include "trails/spaces/space_stage.h"

namespace fs = std::filesystem;
namespace an = trails::analysis;
using RowMatrix = an::RowMatrix;

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Timing {
  double wall = 1e300, cpu = 1e300;  // best of the repetitions (CPU: of all threads)
};

Timing best_of(int reps, const std::function<void()>& f) {
  Timing best;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = cpu_seconds();
    f();
    best.cpu = std::min(best.cpu, cpu_seconds() - c0);
    best.wall = std::min(
        best.wall, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

RowMatrix read_f8(const fs::path& file, Eigen::Index cols) {
  const trails::core::NpyArray a = trails::core::read_npy(file);
  if (a.descr != "<f8") throw std::runtime_error(file.string() + ": expected <f8");
  RowMatrix m(a.n_elements() / cols, cols);
  std::memcpy(m.data(), a.data.data(), a.data.size());
  return m;
}

std::vector<std::vector<int>> read_dtrajs(const fs::path& file) {
  const trails::core::NpyArray a = trails::core::read_npy(file);
  const auto rows = static_cast<std::size_t>(a.shape.at(0)),
             cols = static_cast<std::size_t>(a.shape.at(1));
  std::vector<std::vector<int>> d(rows, std::vector<int>(cols));
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      d[r][c] = static_cast<int>(a.int_at(static_cast<std::int64_t>(r * cols + c)));
  return d;
}

struct Row {
  std::string kernel;
  double deeptime_1, deeptime_2;  // seconds (tests/data/deeptime/REFERENCE-README.md, section 3)
  std::function<void(int threads)> run;
  double scale = 1.0;  // divide the measured time (per Lloyd iteration)
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_deeptime_compare INPUT_DIR [REPS] [ROWS]\n");
    return 2;
  }
  const fs::path dir = argv[1];
  const int reps = argc > 2 ? std::stoi(argv[2]) : 3;
  const std::string only = argc > 3 ? argv[3] : "";
  const auto dtrajs = read_dtrajs(dir / "dtraj.npy");
  const RowMatrix points = read_f8(dir / "dw2d.npy", 2);
  RowMatrix init(500, 2);
  for (Eigen::Index c = 0; c < 500; ++c) init.row(c) = points.row(c * 2000);
  const auto selected = [&only](const std::string& kernel) {
    return kernel.find(only) != std::string::npos;
  };
  // The inputs of the assignment and PCCA+ rows, made only when those rows run.
  std::optional<an::MsmModel> msm10;
  RowMatrix centres;
  constexpr int kLloyd = 10;  // iterations timed; reported per iteration
  std::vector<Row> rows = {
      {"(a) count + lcc + reversible MLE, lag 10", 0.990, 0.992,
       [&](int) { an::estimate_msm(dtrajs, 10); }},
      {"(b) ITS sweep, 10 lags, 10 timescales", 9.00, 9.22,
       [&](int t) {
         const std::vector<int> lags{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
         an::implied_timescales_sweep(dtrajs, lags, 10, 500, an::CountMode::Sliding, {}, t);
       }},
      {"(c) Lloyd iteration, k = 500 on 1e6 x 2", 109.6 / 50, 53.2 / 50,
       [&](int t) {
         an::KMeansOptions o;
         o.k = 500;
         o.max_iter = kLloyd;
         o.tolerance = 0;
         o.initial_centres = init;
         o.n_threads = t;
         an::kmeans(points, o);
       },
       kLloyd},
      {"(c) k-means++ seeding, k = 500", 41.1, 23.0,
       [&](int t) {
         an::KMeansOptions o;
         o.k = 500;
         o.max_iter = 0;
         o.seed = 1234;
         o.n_threads = t;
         an::kmeans(points, o);
       }},
      {"(c) assign 1e6 x 2 to 500 centres", 1.91, 0.94,
       [&](int t) { an::assign(centres, points, t); }},
      {"(e) PCCA+ 4 sets on 500 states", 0.21, 0.32, [&](int) { an::pcca(*msm10, 4); }},
  };
  if (selected(rows[4].kernel)) {
    an::KMeansOptions o;
    o.k = 500;
    o.max_iter = 10;  // realistic centres for the assignment row
    o.tolerance = 0;
    o.initial_centres = init;
    centres = an::kmeans(points, o).centres;
  }
  if (selected(rows[5].kernel)) msm10 = an::estimate_msm(dtrajs, 10);
  RowMatrix feat;
  an::TicaModel tica;
  if (fs::exists(dir / "feat50.npy")) {
    feat = read_f8(dir / "feat50.npy", 50);
    const std::vector<std::int64_t> lengths(10, feat.rows() / 10);
    auto fit = [&, lengths](int t) {  // the fast path (ReversibleMoments)
      an::ReversibleMoments m(50, 10);
      m.add_segments(feat, lengths, t);
      an::TicaOptions o;
      o.dim = 2;
      tica = an::fit_tica(m.covariances(), o);
    };
    rows.push_back({"(d) TICA fit, 1e6 x 50, lag 10, dim 2 (ReversibleMoments)", 1.39, 1.14, fit});
    // The campaign's own call sequence: one SpaceStage::add_iteration of the ten trajectories as
    // walker segments (features, memory moments and range, fit, grid box, projection of every
    // frame) and the history rebuild after the fit: deeptime's fit + transform is the same work.
    const auto campaign = [&feat](trails::spaces::MomentsAlgorithm algorithm) {
      return [&feat, algorithm](int t) {
        trails::spaces::SpaceOptions o;
        o.mode = "tica";
        o.dim = 2;
        o.learned.lagtime = 10;
        o.moments = algorithm;
        o.threads = t;
        trails::spaces::SpaceStage stage(o, 50);
        std::vector<trails::features::FrameHistory::WalkerSpan> spans;
        for (int w = 0; w < 10; ++w) spans.push_back({w, feat.rows() / 10});
        (void)stage.add_iteration(0, spans, std::span<const double>(feat.data(), feat.size()));
        std::size_t cvs = 0;  // the campaign rebuilds its history from the refitted blocks
        stage.for_each_projected_block([&cvs](auto, auto, const auto& y) { cvs += y.size(); });
        if (cvs != 2 * static_cast<std::size_t>(feat.rows())) std::abort();
      };
    };
    rows.push_back({"(d) campaign TICA iteration (fit + project), reversible moments", 1.39 + 0.18,
                    1.14 + 0.14, campaign(trails::spaces::MomentsAlgorithm::ReversibleRows)});
    rows.push_back({"(d) same, running moments (runs created before)", 1.39 + 0.18, 1.14 + 0.14,
                    campaign(trails::spaces::MomentsAlgorithm::Running)});
    rows.push_back({"(d) TICA transform 1e6 x 50 -> 2", 0.18, 0.14, [&](int) {
                      if (tica.dim == 0) fit(1);
                      (void)tica.transform(feat);
                    }});
  }
  fmt::print("pool: {} threads; best of {}; seconds\n\n", trails::core::default_pool().size(),
             reps);
  fmt::print(
      "| kernel | deeptime 1 thread | Trails 1 thread (CPU) | ratio | deeptime 2 threads | "
      "Trails 2 threads | ratio |\n|---|---:|---:|---:|---:|---:|---:|\n");
  for (const Row& r : rows) {
    if (!selected(r.kernel)) continue;
    const Timing t1 = best_of(reps, [&] { r.run(1); });
    const Timing t2 = best_of(reps, [&] { r.run(2); });
    const double w1 = t1.wall / r.scale, c1 = t1.cpu / r.scale, w2 = t2.wall / r.scale;
    fmt::print("| {} | {:.3g} | {:.3g} ({:.3g}) | {:.1f}x | {:.3g} | {:.3g} | {:.1f}x |\n",
               r.kernel, r.deeptime_1, w1, c1, r.deeptime_1 / w1, r.deeptime_2, w2,
               r.deeptime_2 / w2);
    std::fflush(stdout);
  }
  return 0;
}
