#include "trails/report/plot/plot.h"
#include "trails/core/temp_dir.h"
#include "trails/report/plot/plot_msm.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/output_target.h"
#include "trails/engines/builtin/potential.h"
#include "trails/report/analyze/free_energy.h"
#include "trails/report/analyze/plot_fes.h"
#include "trails/report/common/cv_axes.h"
#include "trails/report/common/gnuplot.h"
#include "trails/report/common/potential_from_meta.h"
#include "trails/report/common/run_kind.h"
#include "trails/report/swarm/swarm_outputs.h"
#include "trails/store/run_store.h"

namespace trails::report {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kMaxPlottedPoints = 200000;
// The campaign's two pictures and the free-energy ones; plot_msm_builds() writes msm_plot_files().
constexpr const char* kPictures[] = {"coverage.png", "occupancy.png", "fes.png", "fes_msm.png"};

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

}  // namespace

std::vector<fs::path> plot_run(const fs::path& run_dir, const fs::path& out_dir,
                               const PlotOptions& options) {
  const auto run = open_run(run_dir);
  const auto& store = run.store;
  const auto records = store.load_iterations();
  if (records.empty()) {
    throw core::InputError(run_dir.string() + " has no committed iteration yet; nothing to plot");
  }
  if (run.kind == RunKind::Swarm) return plot_swarm(run_dir, out_dir);  // docs/swarm.md
  const auto potential = potential_from_meta(store.meta());
  // Every picture this command may write is checked before anything is drawn
  // (docs/reliability.md#inputs-and-outputs); gnuplot draws into a temporary directory and
  // each picture replaces its target only once it is complete.
  std::error_code ec;
  if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec)) {
    throw core::UsageError("--output " + out_dir.string() +
                           " exists and is not a directory; give a directory for the pictures; "
                           "nothing was written");
  }
  std::vector<std::pair<std::string, fs::path>> named;
  for (const char* name : kPictures) named.emplace_back("--output", out_dir / name);
  for (const char* name : msm_plot_files()) named.emplace_back("--output", out_dir / name);
  const auto targets = core::check_outputs(named, core::ParentDir::MayBeCreated);
  // Free-energy inputs (a --weights file of another run is refused here, before any write).
  const auto fes_pictures = run_free_energy_pictures(store, run_dir, options.weights,
                                                     options.temperature_k, potential.get());
  fs::create_directories(out_dir, ec);
  if (ec) throw core::InputError("cannot create " + out_dir.string() + ": " + ec.message());
  const core::TempDir tmp("trails-plot");

  // CV points, thinned evenly to keep gnuplot fast on long campaigns.
  std::size_t total = 0;
  for (const auto& r : records) total += static_cast<std::size_t>(r.n_frames());
  const std::size_t every =
      std::max<std::size_t>(1, (total + kMaxPlottedPoints - 1) / kMaxPlottedPoints);
  const int d = records.front().cv_dim;
  // Axes named and in units after the run's CV definitions (cv_axes.h); angles in degrees.
  const auto& cfg = store.meta().config;
  const auto& system = store.meta().engine_system;
  std::array<CvAxis, 2> axis{cv_axis(cfg, system, 0, d),
                             d > 1 ? cv_axis(cfg, system, 1, d) : CvAxis{"iteration", "", 1.0}};
  const bool over_potential = potential && d == 2 && potential->has_energy();
  const bool degrees = !over_potential && d == 2 && axis[0].is_radians() && axis[1].is_radians();
  if (degrees) axis = {axis[0].in_degrees(), axis[1].in_degrees()};
  std::string molecular_ranges;
  if (system.value("molecular", false)) {
    const auto lo = cfg.value("min_values", std::vector<double>{});
    const auto hi = cfg.value("max_values", std::vector<double>{});
    if (d == 2 && lo.size() == 2 && hi.size() == 2) {
      molecular_ranges =
          fmt::format("set xrange [{}:{}]\nset yrange [{}:{}]\n", lo[0] * axis[0].scale,
                      hi[0] * axis[0].scale, lo[1] * axis[1].scale, hi[1] * axis[1].scale);
      if (degrees) molecular_ranges += "set xtics 60\nset ytics 60\nset size ratio -1\n";
    }
  }
  const std::string xlabel = "set xlabel '" + gp_quote(axis[0].label()) + "' noenhanced\n";
  const std::string xylabels =
      xlabel + "set ylabel '" + gp_quote(axis[1].label()) + "' noenhanced\n";
  {
    std::ofstream pts(tmp.path() / "points.dat");
    std::size_t k = 0;
    for (const auto& r : records) {
      for (std::int64_t f = 0; f < r.n_frames(); ++f, ++k) {
        if (k % every != 0) continue;
        const double* x = r.cvs.data() + f * d;
        pts << x[0] * axis[0].scale << ' '
            << (d > 1 ? x[1] * axis[1].scale : static_cast<double>(r.iteration)) << ' '
            << r.iteration << '\n';
      }
    }
    close_checked(pts, tmp.path() / "points.dat");
  }
  const fs::path coverage = tmp.path() / "coverage.png";
  std::string script = "set terminal pngcairo size 900,760 enhanced font 'Sans,11'\n";
  script += "set output " + quoted(coverage) + "\n";
  script += "set palette defined (0 '#1b3a8a', 0.5 '#2aa198', 1 '#e8b30a')\n";
  // The colour bar spans the committed iterations, with whole-iteration tics.
  const std::int64_t first = records.front().iteration;
  const std::int64_t last = records.back().iteration;
  script += fmt::format(
      "set cblabel 'iteration'\nset cbrange [{}:{}]\nset cbtics {}\nset key off\n", first,
      std::max(last, first + 1), std::max<std::int64_t>(1, (last - first + 7) / 8));
  const std::string title =
      fmt::format("Sampled CV points ({} iterations, {} frames)", records.size(), total);
  script += "set title '" + title + "'\n";
  if (over_potential) {
    const auto box = potential->plot_box();
    const double vmin = write_potential_grid(*potential, tmp.path() / "energy.dat");
    // Contour levels over the low-energy region only: the walls would drown the basins.
    const double span = potential_span(store.meta());
    script += fmt::format(
        "set contour base\nunset surface\nset view map\nset cntrparam levels incremental {},{},{}\n"
        "set table {}\nsplot {} using 1:2:3 with lines\nunset table\nunset contour\n",
        vmin + span / 20.0, span / 20.0, vmin + span, quoted(tmp.path() / "contours.dat"),
        quoted(tmp.path() / "energy.dat"));
    script +=
        fmt::format("set xrange [{}:{}]\nset yrange [{}:{}]\n", box[0], box[1], box[2], box[3]);
    script += xylabels + "set size ratio -1\n";
    script += "plot " + quoted(tmp.path() / "contours.dat") +
              " using 1:2 with lines lc rgb '#9a9a9a' lw 0.8, " +
              quoted(tmp.path() / "points.dat") +
              " using 1:2:3 with points pt 7 ps 0.35 lc palette\n";
  } else if (d == 1) {
    script += xlabel + "set ylabel 'iteration'\n";
    script += "plot " + quoted(tmp.path() / "points.dat") +
              " using 1:2:3 with points pt 7 ps 0.35 lc palette\n";
  } else {
    script += molecular_ranges;
    script += xylabels;
    script += "plot " + quoted(tmp.path() / "points.dat") +
              " using 1:2:3 with points pt 7 ps 0.35 lc palette\n";
  }

  {
    std::ofstream occ(tmp.path() / "occupancy.dat");
    for (const auto& r : records) {
      occ << r.iteration << ' ' << r.occupied_bins << ' ' << r.total_bins << ' '
          << (r.n_bins.empty() ? 0 : r.n_bins.front()) << '\n';
    }
    close_checked(occ, tmp.path() / "occupancy.dat");
  }
  const fs::path occupancy = tmp.path() / "occupancy.png";
  script += "reset\nset terminal pngcairo size 900,520 enhanced font 'Sans,11'\n";
  script += "set output " + quoted(occupancy) + "\n";
  script += "set title 'Coverage and grid resolution'\nset xlabel 'iteration'\n";
  script +=
      "set ylabel 'occupied bins'\nset y2label 'bins per axis'\nset ytics nomirror\nset "
      "y2tics\nset yrange [0:*]\nset y2range [0:160]\n";
  script += "set key top left\nset grid\n";
  script += "plot " + quoted(tmp.path() / "occupancy.dat") +
            " using 1:2 with linespoints pt 7 ps 0.5 lw 2 title 'occupied bins', '' using 1:4 "
            "axes x1y2 with steps lw 2 dt 2 title 'resolution (bins per axis)'\n";
  std::vector<std::pair<fs::path, const core::OutputTarget*>> drawn = {{coverage, &targets[0]},
                                                                       {occupancy, &targets[1]}};
  for (const auto& fes : fes_pictures) {
    const fs::path dir = tmp.path() / fs::path(fes.file).stem();
    fs::create_directories(dir);
    script += free_energy_script(fes.picture, dir, dir / fes.file);
    drawn.emplace_back(dir / fes.file, &targets[fes.file == "fes.png" ? 2 : 3]);
  }
  run_gnuplot(script, "the campaign plots");
  std::vector<std::unique_ptr<core::PendingOutput>> staged;
  for (const auto& [png, target] : drawn) check_picture(png, "the campaign plots");
  for (const auto& [png, target] : drawn) {
    staged.push_back(stage_picture(png, *target, "the campaign plots"));
  }
  for (auto& s : staged) s->commit();
  std::vector<fs::path> out;
  for (const auto& [png, target] : drawn) out.push_back(out_dir / png.filename());
  for (auto& p : plot_msm_builds(store, out_dir)) out.push_back(std::move(p));
  return out;
}

}  // namespace trails::report
