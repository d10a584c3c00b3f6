#include "trails/report/plot/plot_msm.h"
#include "trails/core/temp_dir.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/output_target.h"
#include "trails/report/common/convergence_picture.h"
#include "trails/report/common/cv_axes.h"
#include "trails/report/common/gnuplot.h"
#include "trails/report/common/its_picture.h"
#include "trails/report/common/kinetics.h"
#include "trails/report/common/msm_builds.h"
#include "trails/report/common/time_axis.h"
#include "trails/report/msm/msm_network.h"

namespace trails::report {
namespace fs = std::filesystem;

namespace {

std::string terminal(const fs::path& png, int width, int height) {
  return fmt::format(
      "reset\nset terminal pngcairo size {},{} enhanced font 'Sans,11'\nset output {}\n", width,
      height, gp_file(png));
}

bool has_model(const msm::MsmBuildRecord& m) { return m.note.empty() && m.n_active >= 2; }

// The builds with a model, as one series (timescales in frames).
TimescaleSeries series_of(const std::vector<CheckedMsmBuild>& builds) {
  TimescaleSeries s;
  for (const auto& b : builds) {
    if (!has_model(b.record)) continue;
    s.iterations.push_back(b.iteration);
    s.timescales.push_back(b.record.timescales);
    s.errors.push_back(b.record.timescale_errors.value_or(std::vector<double>{}));
    s.lag = b.record.lagtime;
  }
  return s;
}

}  // namespace

const std::vector<const char*>& msm_plot_files() {
  static const std::vector<const char*> files = {
      "convergence.png", "flux_convergence.png", "its.png",    "timescales.png",
      "network.png",     "network.json",         "network.txt"};
  return files;
}

std::vector<fs::path> plot_msm_builds(const store::RunStore& store, const fs::path& out_dir) {
  const auto builds = checked_msm_builds(store);
  const auto summaries = store.summaries();
  const TimeAxis time = run_time_axis(store, std::nullopt);
  const core::TempDir scratch("trails-plot-msm");
  const fs::path& tmp = scratch.path();
  std::vector<fs::path> written;                            // drawn in tmp
  std::vector<std::pair<std::string, std::string>> tables;  // file name, content
  std::string script;
  const TimescaleSeries series = series_of(builds);

  // Convergence over iterations: every run.
  const auto kinetics = kinetics_series(store, std::nullopt);
  if (!summaries.empty()) {
    auto panels = convergence_panels(summaries, series, time);
    if (kinetics) panels.push_back(mfpt_panel(*kinetics, 0.5));
    written.push_back(tmp / "convergence.png");
    script += terminal(written.back(), 1000, 260 * static_cast<int>(panels.size()) + 80);
    script += convergence_plot(panels, summaries.front().iteration, summaries.back().iteration, tmp,
                               "Convergence over iterations");
  }

  // A recycling weighted-ensemble run: its flux and MFPT on their own (docs/kinetics.md).
  if (kinetics) {
    const fs::path dir = tmp / "flux";  // convergence_plot names its data files per picture
    fs::create_directories(dir);
    written.push_back(tmp / "flux_convergence.png");
    script += terminal(written.back(), 1000, 2 * 260 + 80);
    script += convergence_plot(flux_panels(*kinetics, 0.5), kinetics->iterations.front(),
                               kinetics->iterations.back(), dir, flux_title(*kinetics, 0.5));
  }

  const CheckedMsmBuild* latest = nullptr;
  for (const auto& b : builds) {
    if (has_model(b.record)) latest = &b;
  }
  if (latest != nullptr) {
    const auto& last = latest->record;
    if (!last.its.empty()) {
      ItsLadder ladder{last.its, last.lagtime, last.timescales,
                       last.timescale_errors.value_or(std::vector<double>{}),
                       last.its_errors.value_or(std::map<int, std::vector<double>>{})};
      written.push_back(tmp / "its.png");
      script += terminal(written.back(), 1000, 560);
      script += its_plot(ladder, time, tmp,
                         fmt::format("Implied timescales (MSM at iteration {}, {} estimator)",
                                     latest->iteration, last.estimator));
    }
    // Timescales and VAMP-2 of every build vs iteration.
    {
      std::ofstream out(tmp / "vamp2.dat");
      for (const auto& b : builds) {
        if (has_model(b.record)) out << b.iteration << ' ' << b.record.vamp2.value_or(NAN) << '\n';
      }
      close_checked(out, tmp / "vamp2.dat");
      written.push_back(tmp / "timescales.png");
      script += terminal(written.back(), 1000, 560);
      script += "set y2label 'VAMP-2 score'\nset y2tics\nset ytics nomirror\n";
      script += timescale_series_plot(
          series, time, series.timescales.empty() ? 0 : series.timescales.back().size(), tmp,
          fmt::format("MSM timescales per build (lag {} frames)", series.lag),
          ", " + gp_file(tmp / "vamp2.dat") +
              " using 1:2 axes x1y2 with lines dt 2 lw 2 lc rgb '#555555' title 'VAMP-2'");
    }
    if (const auto net = coarse_network(last)) {
      written.push_back(tmp / "network.png");
      script += terminal(written.back(), 900, network_picture_height(*net));
      script += network_plot(*net, time, tmp);
      tables.emplace_back("network.json", network_json(*net, time).dump(2) + "\n");
      tables.emplace_back("network.txt", network_table(*net, time));
    }
  }
  if (!script.empty()) run_gnuplot(script, "the MSM and convergence plots");
  // Drawn in `tmp`; each file replaces its target only once all are complete.
  std::vector<std::unique_ptr<core::PendingOutput>> staged;
  for (auto& png : written) {
    const fs::path target = out_dir / png.filename();
    staged.push_back(stage_picture(png, core::check_output("--output", target),
                                   "the MSM and convergence plots"));
    png = target;
  }
  for (const auto& [name, text] : tables) {
    staged.push_back(
        std::make_unique<core::PendingOutput>(core::check_output("--output", out_dir / name)));
    staged.back()->write(text);
    written.push_back(out_dir / name);
  }
  for (auto& s : staged) s->commit();
  return written;
}

}  // namespace trails::report
