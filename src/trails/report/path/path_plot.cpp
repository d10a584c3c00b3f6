#include "trails/report/path/path_plot.h"

#include <algorithm>
#include <limits>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "trails/report/common/cv_axes.h"
#include "trails/report/common/gnuplot.h"
#include "trails/report/common/potential_from_meta.h"

namespace trails::report {
namespace {

constexpr std::size_t kMaxBackgroundPoints = 100000;
// Colours of successive paths (colour-blind safe).
constexpr const char* kPathColours[] = {"#d62728", "#1f77b4", "#2ca02c", "#9467bd",
                                        "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};

// One gnuplot datablock line per point: x y [z].
std::string point_line(std::span<const double> cv, double second) {
  return cv.size() >= 2 ? fmt::format("{} {}\n", cv[0], cv[1])
                        : fmt::format("{} {}\n", cv[0], second);
}

// The y value of a 1-D run's frame: its iteration plus how far into the segment it is.
double tree_height(const RunFrames& frames, std::size_t row) {
  const auto& k = frames.keys()[row];
  return static_cast<double>(k.iteration) +
         static_cast<double>(k.frame) / static_cast<double>(frames.segment_length(k));
}

}  // namespace

void draw_path_plot(const store::RunMeta& meta, const RunFrames& frames,
                    const std::vector<PlottedPath>& paths, const std::filesystem::path& png) {
  const int d = frames.dim();
  const auto y_of = [&](std::size_t row) { return d >= 2 ? 0.0 : tree_height(frames, row); };
  std::string script = "set terminal pngcairo size 900,760 noenhanced font 'Sans,11'\n";
  script += "set output '" + png.string() + "'\n";
  // CV points, thinned evenly.
  const std::size_t every =
      std::max<std::size_t>(1, (frames.size() + kMaxBackgroundPoints - 1) / kMaxBackgroundPoints);
  script += "$POINTS << EOD\n";
  for (std::size_t row = 0; row < frames.size(); row += every) {
    script += point_line(frames.cv(row), y_of(row));
  }
  script += "EOD\n";
  for (std::size_t p = 0; p < paths.size(); ++p) {
    script += fmt::format("$PATH{} << EOD\n", p);
    for (const auto row : paths[p].rows) script += point_line(frames.cv(row), y_of(row));
    script += fmt::format("EOD\n$ENDS{} << EOD\n", p);
    for (const auto row : {paths[p].rows.front(), paths[p].lca_row, paths[p].rows.back()}) {
      script += point_line(frames.cv(row), y_of(row));
    }
    script += "EOD\n";
  }
  std::string layers;
  const auto potential = potential_from_meta(meta);
  if (potential && d == 2 && potential->has_energy()) {
    const auto box = potential->plot_box();
    // Energy on a grid for contour tracing; levels over the low-energy region only.
    script += "$ENERGY << EOD\n";
    double vmin = std::numeric_limits<double>::infinity();
    const int n = 100;
    for (int a = 0; a <= n; ++a) {
      for (int b = 0; b <= n; ++b) {
        const double x[2] = {box[0] + (box[1] - box[0]) * a / n,
                             box[2] + (box[3] - box[2]) * b / n};
        const double v = potential->energy(x);
        vmin = std::min(vmin, v);
        script += fmt::format("{} {} {}\n", x[0], x[1], v);
      }
      script += "\n";
    }
    script += "EOD\n";
    const double span = potential_span(meta);
    script += fmt::format(
        "set contour base\nunset surface\nset view map\nset cntrparam levels incremental "
        "{},{},{}\nset table $CONTOURS\nsplot $ENERGY using 1:2:3 with lines\nunset table\n"
        "unset contour\nset surface\n",
        vmin + span / 20.0, span / 20.0, vmin + span);
    script += fmt::format("set xrange [{}:{}]\nset yrange [{}:{}]\nset size ratio -1\n", box[0],
                          box[1], box[2], box[3]);
    layers = "$CONTOURS using 1:2 with lines lc rgb '#b0b0b0' lw 0.8 notitle, ";
  }
  // Molecular runs: the campaign's own grid box, so pictures of one run share their axes.
  const auto lo = meta.config.value("min_values", std::vector<double>{});
  const auto hi = meta.config.value("max_values", std::vector<double>{});
  if (layers.empty() && d >= 2 && meta.engine_system.value("molecular", false) &&
      lo.size() == static_cast<std::size_t>(d) && hi.size() == lo.size()) {
    script += fmt::format("set xrange [{}:{}]\nset yrange [{}:{}]\n", lo[0], hi[0], lo[1], hi[1]);
  }
  const std::string xlabel = cv_axis_label(meta.config, meta.engine_system, 0, d);
  const std::string ylabel =
      d >= 2 ? cv_axis_label(meta.config, meta.engine_system, 1, d) : "iteration (lineage tree)";
  script += fmt::format("set xlabel '{}'\nset ylabel '{}'\n", xlabel, ylabel);
  script += fmt::format("set title 'Lineage-connected path{} over {} sampled frames{}'\n",
                        paths.size() > 1 ? "s" : "", frames.size(),
                        d > 2 ? fmt::format(" (first 2 of {} CVs)", d) : std::string());
  script += "set key inside top right box opaque\nset grid\n";
  std::string plot = "plot " + layers +
                     "$POINTS using 1:2 with points pt 7 ps 0.25 lc rgb '#9a9a9a' title 'frames'";
  for (std::size_t p = 0; p < paths.size(); ++p) {
    const char* colour = kPathColours[p % std::size(kPathColours)];
    plot += fmt::format(
        ", $PATH{0} using 1:2 with linespoints pt 7 ps 0.5 lw 2 lc rgb '{1}' title '{2}'"
        ", $ENDS{0} every ::0::0 using 1:2 with points pt 7 ps 2.2 lc rgb '{1}' title 'start'"
        ", $ENDS{0} every ::1::1 using 1:2 with points pt 13 ps 2.2 lc rgb 'black' title "
        "'common ancestor'"
        ", $ENDS{0} every ::2::2 using 1:2 with points pt 9 ps 2.2 lc rgb '{1}' title 'end'",
        p, colour, paths[p].label);
  }
  script += plot + "\n";
  run_gnuplot(script, "the path picture");
}

}  // namespace trails::report
