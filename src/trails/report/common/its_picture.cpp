#include "trails/report/common/its_picture.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <tuple>

#include <fmt/format.h>

#include "trails/report/common/gnuplot.h"
#include "trails/report/common/number_text.h"

namespace trails::report {
namespace fs = std::filesystem;

namespace {

bool usable(double t) { return std::isfinite(t) && t > 0; }

// t ± σ on a log axis: the lower edge kept positive (a band reaching 0 is drawn to t/100).
std::pair<double, double> band(double t, double sigma) {
  if (!usable(t) || !std::isfinite(sigma)) return {NAN, NAN};
  return {std::max(t - sigma, t / 100.0), t + sigma};
}

// its_band.dat: per lag, t_i - σ_i and t_i + σ_i for every timescale (NaN where either is
// missing); false when no lag has a usable band. Widens [smallest, largest] to the bands.
bool write_band(const ItsLadder& ladder, std::size_t width, const TimeScale& u,
                const fs::path& file, double& smallest, double& largest) {
  bool any = false;
  std::ofstream out(file);
  for (const auto& [lag, ts] : ladder.its) {
    const auto e = ladder.errors.find(lag);
    out << lag * u.per_frame;
    for (std::size_t i = 0; i < width; ++i) {
      double lo = NAN, hi = NAN;
      if (e != ladder.errors.end() && i < ts.size() && i < e->second.size()) {
        std::tie(lo, hi) = band(ts[i], e->second[i]);
      }
      if (std::isfinite(lo)) {
        any = true;
        smallest = std::min(smallest, lo);
        largest = std::max(largest, hi);
      }
      out << ' ' << round_trip_or_nan(lo * u.per_frame) << ' '
          << round_trip_or_nan(hi * u.per_frame);
    }
    out << '\n';
  }
  close_checked(out, file);
  return any;
}

}  // namespace

std::string its_plot(const ItsLadder& ladder, const TimeAxis& time, const fs::path& dir,
                     const std::string& title) {
  double largest = 0.0;
  double smallest = std::numeric_limits<double>::infinity();
  std::size_t width = 0;
  for (const auto& [lag, ts] : ladder.its) {
    largest = std::max(largest, static_cast<double>(lag));
    smallest = std::min(smallest, static_cast<double>(lag));
    width = std::max(width, ts.size());
    for (const double t : ts) {
      if (usable(t)) {
        largest = std::max(largest, t);
        smallest = std::min(smallest, t);
      }
    }
  }
  const TimeScale u = time.readable(largest);
  std::string g = "set title '" + gp_quote(title) + "'\n";
  g += fmt::format("set xlabel 'lag time ({0})'\nset ylabel 'implied timescale ({0})'\n", u.unit);
  g += "set logscale y\nset grid\nset key outside right top vertical Left reverse\n";
  if (ladder.its.empty() || width == 0) {
    g += "unset logscale y\nset label 1 'no implied-timescale ladder (msm.lagtimes or --its)' at "
         "graph 0.5, graph 0.5 center\nplot [0:1][0:1] NaN notitle\nunset label 1\n";
    return g;
  }
  {
    std::ofstream out(dir / "its.dat");
    for (const auto& [lag, ts] : ladder.its) {
      out << lag * u.per_frame;
      for (std::size_t i = 0; i < width; ++i) {
        out << ' ' << round_trip_or_nan(i < ts.size() && usable(ts[i]) ? ts[i] * u.per_frame : NAN);
      }
      out << '\n';
    }
    close_checked(out, dir / "its.dat");
  }
  const bool banded = write_band(ladder, width, u, dir / "its_band.dat", smallest, largest);
  const double ylo = smallest * u.per_frame / 2;
  g += fmt::format("set yrange [{}:{}]\n", ylo, largest * u.per_frame * 2);
  std::string plot = fmt::format(
      "plot {} using 1:({}):1 with filledcurves lc rgb '#e4e4e4' title 'below the lag: not "
      "resolved'",
      gp_file(dir / "its.dat"), ylo);
  for (std::size_t i = 0; banded && i < width; ++i) {
    plot += fmt::format(
        ", {} using 1:{}:{} with filledcurves fs transparent solid 0.2 noborder lt {} {}",
        gp_file(dir / "its_band.dat"), 2 * i + 2, 2 * i + 3, i + 1,
        i == 0 ? "title '± σ (Bayesian, at each lag)'" : "notitle");
  }
  // Named, not '': after the bands '' would be its_band.dat.
  const std::string its_dat = gp_file(dir / "its.dat");
  for (std::size_t i = 0; i < width; ++i) {
    plot += fmt::format(", {} using 1:{} with linespoints lt {} pt 7 lw 2 title 't_{}'", its_dat,
                        i + 2, i + 1, i + 2);
  }
  plot += ", " + its_dat + " using 1:1 with lines dt 2 lw 1.5 lc rgb '#555555' title 'lag time'";
  bool any_error = false;
  {
    std::ofstream out(dir / "its_err.dat");
    for (std::size_t i = 0; i < ladder.model_errors.size() && i < ladder.model_timescales.size();
         ++i) {
      const double t = ladder.model_timescales[i];
      const auto [lo, hi] = band(t, ladder.model_errors[i]);
      if (!std::isfinite(lo)) continue;
      out << ladder.model_lag * u.per_frame << ' ' << t * u.per_frame << ' ' << lo * u.per_frame
          << ' ' << hi * u.per_frame << '\n';
      any_error = true;
    }
    close_checked(out, dir / "its_err.dat");
  }
  if (any_error) {
    plot += fmt::format(
        ", {} using 1:2:3:4 with yerrorbars pt 6 ps 1.6 lw 2 lc rgb '#000000' title "
        "'model ± σ (Bayesian)'",
        gp_file(dir / "its_err.dat"));
  }
  return g + plot + "\n";
}

TimeScale series_time_scale(const TimescaleSeries& series, const TimeAxis& time) {
  double largest = static_cast<double>(series.lag);
  for (std::size_t b = 0; b < series.timescales.size(); ++b) {
    for (std::size_t j = 0; j < series.timescales[b].size(); ++j) {
      const double t = series.timescales[b][j];
      if (!usable(t)) continue;
      const double s = j < series.errors[b].size() && std::isfinite(series.errors[b][j])
                           ? series.errors[b][j]
                           : 0.0;
      largest = std::max(largest, t + s);
    }
  }
  return time.readable(largest);
}

std::string timescale_series_plot(const TimescaleSeries& series, const TimeAxis& time,
                                  std::size_t n_plot, const fs::path& dir, const std::string& title,
                                  const std::string& extra) {
  const TimeScale u = series_time_scale(series, time);
  std::size_t width = 0;
  for (const auto& ts : series.timescales) width = std::max(width, ts.size());
  width = std::min(width, n_plot);
  bool any_error = false;
  {
    std::ofstream out(dir / "series.dat");
    for (std::size_t b = 0; b < series.iterations.size(); ++b) {
      out << series.iterations[b];
      const auto& ts = series.timescales[b];
      const auto& err = series.errors[b];
      for (std::size_t j = 0; j < width; ++j) {
        const double t = j < ts.size() && usable(ts[j]) ? ts[j] : NAN;
        const auto [lo, hi] = band(t, j < err.size() ? err[j] : NAN);
        any_error = any_error || std::isfinite(lo);
        out << ' ' << round_trip_or_nan(t * u.per_frame) << ' '
            << round_trip_or_nan(lo * u.per_frame) << ' ' << round_trip_or_nan(hi * u.per_frame);
      }
      out << '\n';
    }
    close_checked(out, dir / "series.dat");
  }
  std::string g = "set title '" + gp_quote(title) + "'\n";
  g += fmt::format("set xlabel 'iteration'\nset ylabel 'implied timescale ({})'\n", u.unit);
  g += "set logscale y\nset grid\nset key outside right top vertical Left reverse\n";
  if (width == 0) return g + "unset logscale y\nplot [0:1][0:1] NaN notitle" + extra + "\n";
  std::string plot = "plot ";
  const std::string file = gp_file(dir / "series.dat");
  for (std::size_t j = 0; j < width && any_error; ++j) {
    plot += fmt::format(
        "{}{} using 1:{}:{} with filledcurves fs transparent solid 0.25 noborder lt {} title "
        "'{}'",
        j ? ", " : "", j ? "''" : file, 3 * j + 3, 3 * j + 4, j + 1,
        j == 0 ? "± σ (Bayesian)" : "");
  }
  for (std::size_t j = 0; j < width; ++j) {
    plot += fmt::format("{}{} using 1:{} with linespoints lt {} pt 7 ps 0.7 lw 2 title 't_{}'",
                        plot.size() > 5 ? ", " : "", plot.size() > 5 ? "''" : file, 3 * j + 2,
                        j + 1, j + 2);
  }
  return g + plot + extra + "\n";
}

}  // namespace trails::report
