#include "trails/report/plot_msm.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/output_target.h"
#include "trails/report/gnuplot.h"

namespace trails::report {
namespace fs = std::filesystem;

namespace {

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

}  // namespace

std::vector<fs::path> plot_msm_builds(const std::vector<CheckedMsmBuild>& builds, int cv_dim,
                                      const fs::path& out_dir) {
  if (builds.empty()) return {};
  const fs::path tmp = fs::temp_directory_path() / fmt::format("trails-plot-msm-{}", ::getpid());
  fs::create_directories(tmp);
  const auto& last = builds.back().record;
  std::vector<fs::path> written;
  std::string script;
  const int nts = static_cast<int>(last.timescales.size());

  // Implied timescales vs lag (latest build).
  if (!last.its.empty()) {
    const auto& rows = last.its;  // lags ascending; NaN where the payload has null
    std::ofstream out(tmp / "its.dat");
    for (const auto& [lag, v] : rows) {
      out << lag;
      for (const double t : v) out << ' ' << (std::isfinite(t) ? fmt::format("{}", t) : "NaN");
      out << '\n';
    }
    close_checked(out, tmp / "its.dat");
    const fs::path png = tmp / "its.png";
    script += "reset\nset terminal pngcairo size 900,560 enhanced font 'Sans,11'\n";
    script += "set output " + q(png) + "\n";
    script += fmt::format("set title 'Implied timescales (MSM at iteration {})'\n",
                          builds.back().iteration);
    script +=
        "set xlabel 'lag (frames)'\nset ylabel 'timescale (frames)'\nset logscale y\nset grid\nset "
        "key top left\n";
    std::string plot = "plot ";
    const int ncol = static_cast<int>(rows.begin()->second.size());
    for (int i = 0; i < ncol; ++i) {
      plot += fmt::format("{}{} using 1:{} with linespoints pt 7 lw 2 title 't_{}'", i ? ", " : "",
                          i ? "''" : q(tmp / "its.dat"), i + 2, i + 2);
    }
    plot += ", '' using 1:1 with lines dt 2 lc rgb '#888888' title 'lag'\n";
    script += plot;
    written.push_back(png);
  }

  // Timescales and VAMP-2 of every build vs iteration.
  {
    std::ofstream out(tmp / "builds.dat");
    for (const auto& b : builds) {
      out << b.iteration << ' ' << b.record.vamp2.value_or(NAN);
      const auto& ts = b.record.timescales;
      for (int i = 0; i < nts; ++i) out << ' ' << (i < static_cast<int>(ts.size()) ? ts[i] : NAN);
      out << '\n';
    }
    close_checked(out, tmp / "builds.dat");
    const fs::path png = tmp / "timescales.png";
    script += "reset\nset terminal pngcairo size 900,560 enhanced font 'Sans,11'\n";
    script += "set output " + q(png) + "\n";
    script += fmt::format("set title 'MSM timescales per build (lag {})'\n", last.lagtime);
    script += "set xlabel 'iteration'\nset ylabel 'timescale (frames)'\nset logscale y\n";
    script += "set y2label 'VAMP-2'\nset y2tics\nset ytics nomirror\nset grid\nset key top left\n";
    std::string plot = "plot " + q(tmp / "builds.dat") +
                       " using 1:2 axes x1y2 with lines dt 2 lw 2 lc rgb '#555555' title 'VAMP-2'";
    for (int i = 0; i < nts; ++i) {
      plot += fmt::format(", '' using 1:{} with linespoints pt 7 ps 0.5 lw 2 title 't_{}'", i + 3,
                          i + 2);
    }
    script += plot + "\n";
    written.push_back(png);
  }

  // Free energy of the active microstates from pi.
  if (last.cluster_centers && cv_dim >= 1) {
    const auto& centres = *last.cluster_centers;
    const auto& active = last.active_set;
    const auto& pi = last.stationary_distribution;
    double fmin = INFINITY;
    for (const double p : pi) fmin = std::min(fmin, -std::log(p));
    std::vector<std::tuple<double, double, double>> pts;
    for (std::size_t a = 0; a < active.size(); ++a) {
      const auto c = static_cast<std::size_t>(active[a]) * static_cast<std::size_t>(cv_dim);
      pts.emplace_back(centres[c], cv_dim > 1 ? centres[c + 1] : 0.0, -std::log(pi[a]) - fmin);
    }
    std::sort(pts.begin(), pts.end());
    std::ofstream out(tmp / "fe.dat");
    for (const auto& [x, y, f] : pts) out << x << ' ' << y << ' ' << f << '\n';
    close_checked(out, tmp / "fe.dat");
    const fs::path png = tmp / "free_energy.png";
    script += "reset\nset terminal pngcairo size 900,620 enhanced font 'Sans,11'\n";
    script += "set output " + q(png) + "\n";
    script += fmt::format(
        "set title 'Free energy -ln {{/Symbol p}}_i of the microstates (MSM at iteration {})'\n",
        builds.back().iteration);
    if (cv_dim == 1) {
      script +=
          "set xlabel 'cv_0 of the microstate centre'\nset ylabel 'F (kT)'\nset grid\nset key "
          "off\n";
      script += "plot " + q(tmp / "fe.dat") + " using 1:3 with linespoints pt 7 lw 2\n";
    } else {
      script +=
          "set xlabel 'cv_0'\nset ylabel 'cv_1'\nset cblabel 'F (kT)'\nset key off\nset size ratio "
          "-1\n";
      script += "set palette defined (0 '#1b3a8a', 0.5 '#2aa198', 1 '#e8b30a')\n";
      script += "plot " + q(tmp / "fe.dat") + " using 1:2:3 with points pt 7 ps 2 lc palette\n";
    }
    written.push_back(png);
  }
  try {
    run_gnuplot(script, "the MSM plots");
    // Drawn in `tmp`; each picture replaces its target only once all are complete.
    for (const auto& png : written) check_picture(png, "the MSM plots");
    std::vector<std::unique_ptr<core::PendingOutput>> staged;
    for (auto& png : written) {
      const fs::path target = out_dir / png.filename();
      staged.push_back(stage_picture(png, core::check_output("--output", target), "the MSM plots"));
      png = target;
    }
    for (auto& s : staged) s->commit();
  } catch (...) {
    fs::remove_all(tmp);
    throw;
  }
  fs::remove_all(tmp);
  return written;
}

}  // namespace trails::report
