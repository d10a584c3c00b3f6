// The figure of `trails analyze`: three data files and one gnuplot script for a 2×2 multiplot
// — (a) implied timescales vs lag, (b) timescale convergence, (c) VAMP-2 convergence, (d) the
// free-energy surface — drawn by one gnuplot process in a temporary directory.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/report/analyze/analyze_report.h"
#include "trails/report/common/gnuplot.h"
#include "trails/report/common/its_picture.h"
#include "trails/report/common/number_text.h"

namespace trails::report::detail {
namespace fs = std::filesystem;

namespace {

constexpr int kPlottedTimescales = 3;  // Trails-MD's plot_timescale_convergence draws t2..t4

// One gnuplot process for the whole report; its messages go to a log, not to our stdout.
void run_gnuplot(const std::string& script, const fs::path& log) {
  report::run_gnuplot(script, "the analysis report", &log);
}

}  // namespace

void ReportFigure::write_data(const ReportData& r) const {
  {
    std::ofstream out(dir() / "builds.dat");
    for (std::size_t b = 0; b < r.iterations.size(); ++b) {
      out << r.iterations[b] << ' ' << round_trip_or_nan(r.vamp2[b]) << '\n';
    }
  }
  std::ofstream out(dir() / "fes.dat");
  const auto& fes = r.fes;
  const auto& ex = fes.edges[0];
  for (int i = 0; i < fes.bins; ++i) {
    const double x = 0.5 * (ex[static_cast<std::size_t>(i)] + ex[static_cast<std::size_t>(i) + 1]);
    if (r.fes_dims == 1) {
      out << x << ' ' << round_trip_or_nan(fes.free_energy[static_cast<std::size_t>(i)]) << '\n';
      continue;
    }
    const auto& ey = fes.edges[1];
    for (int j = 0; j < fes.bins; ++j) {
      const double y =
          0.5 * (ey[static_cast<std::size_t>(j)] + ey[static_cast<std::size_t>(j) + 1]);
      const auto cell = static_cast<std::size_t>(i) * static_cast<std::size_t>(fes.bins) +
                        static_cast<std::size_t>(j);
      const double f = fes.free_energy[cell];
      out << x << ' ' << y << ' ' << round_trip_or_nan(f) << '\n';
    }
    out << '\n';
  }
}

// (a) implied timescales vs lag, with the latest build's Bayesian σ (band and bars) when it has one
std::string ReportFigure::its_panel(const ReportData& r) const {
  const ItsLadder ladder{{r.its.begin(), r.its.end()},
                         r.lag,
                         r.latest.timescales,
                         r.latest.timescale_errors.value_or(std::vector<double>{}),
                         r.latest.its_errors.value_or(std::map<int, std::vector<double>>{})};
  return its_plot(ladder, r.time, dir(), "(a) Implied timescales (latest build)");
}

// (b) timescale convergence, with the tail means dashed
std::string ReportFigure::timescale_panel(const ReportData& r, const std::string& transient) const {
  TimescaleSeries series{r.iterations, r.ts_series, r.ts_errors, r.lag};
  const TimeScale u = series_time_scale(series, r.time);
  const std::size_t nplot = std::min<std::size_t>(r.width, kPlottedTimescales);
  std::string tails;
  for (std::size_t j = 0; j < nplot; ++j) {
    if (std::isfinite(r.ts_tail[j].mean) && r.ts_tail[j].mean > 0) {
      tails +=
          fmt::format(", {} with lines lt {} dt 2 notitle", r.ts_tail[j].mean * u.per_frame, j + 1);
    }
  }
  return "reset\n" + transient +
         timescale_series_plot(series, r.time, nplot, dir(), "(b) Timescale convergence", tails);
}

// (c) VAMP-2 convergence
std::string ReportFigure::vamp2_panel(const ReportData& r, const std::string& transient) const {
  std::string g = "reset\n" + transient;
  g += "set title '(c) VAMP-2 convergence'\nset xlabel 'iteration'\nset ylabel 'VAMP-2 score'\n"
       "set grid\nset key outside right top vertical Left reverse\n";
  g += "plot " + gp_file(dir() / "builds.dat") +
       " using 1:2 with linespoints pt 7 ps 0.8 lw 2 lc rgb '#c0392b' title 'VAMP-2'";
  if (std::isfinite(r.vamp2_tail.mean)) {
    g += fmt::format(", {} with lines dt 2 lc rgb '#c0392b' title 'tail mean'", r.vamp2_tail.mean);
  }
  return g + "\n";
}

// (d) free-energy surface: an image over two CVs, or a curve over one
std::string ReportFigure::free_energy_panel(const ReportData& r) const {
  const auto& names = r.cv_labels;
  std::string g = "reset\n";
  const std::string fes_title =
      fmt::format("(d) Free energy{} ({})", r.weights.empty() ? "" : ", " + r.weighting_short,
                  r.scale.statement);
  g += "set title '" + gp_quote(fes_title) + "'\n";
  if (r.fes_dims == 2) {
    g += fmt::format(
        "set xlabel '{}' noenhanced\nset ylabel '{}' noenhanced\nset cblabel 'free energy "
        "({})'\n",
        gp_quote(names[0]), gp_quote(names[1]), r.scale.unit);
    g += fmt::format("set xrange [{}:{}]\nset yrange [{}:{}]\nset cbrange [0:*]\n",
                     r.fes.edges[0].front(), r.fes.edges[0].back(), r.fes.edges[1].front(),
                     r.fes.edges[1].back());
    g += "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21908d', 0.75 '#5dc963', 1 "
         "'#fde725')\n";
    g += "set key off\nplot " + gp_file(dir() / "fes.dat") + " using 1:2:3 with image\n";
  } else {
    g += fmt::format(
        "set xlabel '{}' noenhanced\nset ylabel 'free energy ({})'\nset grid\nset key off\n",
        gp_quote(names[0]), r.scale.unit);
    g += "plot " + gp_file(dir() / "fes.dat") +
         " using 1:2 with linespoints pt 7 ps 0.6 lw 2 lc rgb '#21908d'\n";
  }
  return g;
}

std::string ReportFigure::script(const ReportData& r, const AnalyzeRequest& request) const {
  // Shading of the builds dropped by --discard-fraction, between the last dropped and first kept.
  std::string transient;
  const auto& tail = r.vamp2_tail;
  if (tail.n_skip > 0 && tail.n_tail > 0) {
    const double cut =
        0.5 * static_cast<double>(r.iterations[tail.n_skip - 1] + r.iterations[tail.n_skip]);
    transient = fmt::format(
        "set object 1 rect from graph 0, graph 0 to first {}, graph 1 behind "
        "fc rgb '#e6e6e6' fs solid 1.0 noborder\n",
        cut);
  }
  const std::string font = "set terminal pngcairo size 1650,1350 enhanced font 'Sans,12'\n";
  std::string g = font + "set output " + gp_file(dir() / "report.png") + "\n";
  const std::string run_name = request.run_dir.filename().string().empty()
                                   ? request.run_dir.string()
                                   : request.run_dir.filename().string();
  g += fmt::format(
      "set multiplot layout 2,2 title '{}' font 'Sans,14'\n",
      gp_quote(fmt::format("MSM convergence report: {} ({} builds, latest at iteration {})",
                           run_name, r.iterations.size(), r.latest_iteration)));
  g += its_panel(r);
  g += timescale_panel(r, transient);
  g += vamp2_panel(r, transient);
  g += free_energy_panel(r);
  return g + "unset multiplot\nset output\n";
}

std::string ReportFigure::draw(const ReportData& r, const AnalyzeRequest& request) {
  write_data(r);
  const fs::path png = dir() / "report.png";
  run_gnuplot(script(r, request), dir() / "gnuplot.log");
  if (!fs::exists(png) || fs::file_size(png) == 0) {
    throw core::InputError("gnuplot wrote no picture for the analysis report");
  }
  std::ifstream in(png, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace trails::report::detail
