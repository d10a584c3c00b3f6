#include "trails/report/common/convergence_picture.h"

#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "trails/binning/uniform_grid.h"
#include "trails/report/common/gnuplot.h"
#include "trails/report/common/number_text.h"

namespace trails::report {
namespace fs = std::filesystem;

namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos;
       at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

}  // namespace

std::vector<ConvergencePanel> convergence_panels(
    const std::vector<store::IterationSummary>& summaries, const TimescaleSeries& msm,
    const TimeAxis& time) {
  std::vector<ConvergencePanel> panels;
  ConvergencePanel explored{"explored fraction of the grid", "", "", "set yrange [0:1.05]\n"};
  ConvergencePanel occupied{"occupied bins", "", "", "set yrange [0:*]\n"};
  for (const auto& s : summaries) {
    explored.data += fmt::format("{} {}\n", s.iteration,
                                 binning::occupied_fraction(s.occupied_bins, s.total_bins));
    occupied.data += fmt::format("{} {}\n", s.iteration, s.occupied_bins);
  }
  explored.plot =
      "DATA using 1:2 with linespoints pt 7 ps 0.6 lw 2 lc rgb '#1b7837' title "
      "'occupied / total bins'";
  occupied.plot =
      "DATA using 1:2 with linespoints pt 7 ps 0.6 lw 2 lc rgb '#2166ac' title "
      "'occupied bins'";
  panels.push_back(std::move(explored));
  panels.push_back(std::move(occupied));
  if (msm.iterations.empty()) return panels;
  const TimeScale u = series_time_scale(msm, time);
  ConvergencePanel slowest{fmt::format("slowest timescale ({})", u.unit), "", "",
                           "set logscale y\n"};
  bool any_error = false;
  for (std::size_t b = 0; b < msm.iterations.size(); ++b) {
    const auto& ts = msm.timescales[b];
    const double t = ts.empty() || !(ts[0] > 0) ? NAN : ts[0];
    const double s = msm.errors[b].empty() ? NAN : msm.errors[b][0];
    const bool band = std::isfinite(t) && std::isfinite(s);
    any_error = any_error || band;
    slowest.data +=
        fmt::format("{} {} {} {}\n", msm.iterations[b], round_trip_or_nan(t * u.per_frame),
                    round_trip_or_nan(band ? std::max(t - s, t / 100) * u.per_frame : NAN),
                    round_trip_or_nan(band ? (t + s) * u.per_frame : NAN));
  }
  if (any_error) {
    slowest.plot =
        "DATA using 1:3:4 with filledcurves fs transparent solid 0.25 noborder lc rgb "
        "'#b2182b' title '± σ (Bayesian)', ";
  }
  slowest.plot += fmt::format(
      "DATA using 1:2 with linespoints pt 7 ps 0.6 lw 2 lc rgb '#b2182b' title 't_2 (MSM, lag "
      "{} frames)'",
      msm.lag);
  panels.push_back(std::move(slowest));
  return panels;
}

std::string convergence_plot(const std::vector<ConvergencePanel>& panels, std::int64_t first,
                             std::int64_t last, const fs::path& dir, const std::string& title) {
  const std::size_t n = panels.size();
  // Shared x axis: the same margins and range in every panel, tic labels on the bottom one.
  const double top = 0.92, bottom = 0.08;
  const double h = (top - bottom) / static_cast<double>(n);
  std::string g = fmt::format("set multiplot title '{}'\n", gp_quote(title));
  const std::int64_t hi = last > first ? last : first + 1;
  for (std::size_t p = 0; p < n; ++p) {
    const auto& panel = panels[p];
    const fs::path file = dir / fmt::format("convergence_{}.dat", p);
    std::ofstream out(file);
    out << panel.data;
    close_checked(out, file);
    const double y1 = top - h * static_cast<double>(p);
    g += "reset\n";
    g += fmt::format(
        "set lmargin at screen 0.11\nset rmargin at screen 0.70\nset tmargin at screen {}\nset "
        "bmargin at screen {}\n",
        y1 - 0.01, y1 - h + 0.02);
    g += fmt::format("set xrange [{}:{}]\nset grid\nset key outside right center Left reverse\n",
                     first, hi);
    g += fmt::format("set ylabel '{}'\n", gp_quote(panel.ylabel));
    g += p + 1 == n ? "set xlabel 'iteration'\n" : "set format x ''\n";
    if (hi - first <= 20) g += "set xtics 1\n";
    g += panel.settings;
    g += "plot " + replace_all(panel.plot, "DATA", "'" + file.string() + "'") + "\n";
  }
  return g + "unset multiplot\n";
}

}  // namespace trails::report
