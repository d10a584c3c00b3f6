// The implied-timescale pictures shared by `trails plot` (its.png, timescales.png), `trails
// analyze` (panels a and b) and `trails msm --plot`: gnuplot commands (no terminal, no output)
// over data files they write, times in the readable unit of the run's TimeAxis, the Bayesian
// standard deviation drawn where the MSM has one, every key outside the plotting area.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "trails/report/common/time_axis.h"

namespace trails::report {

// Timescales are in frames; NaN where there is none (an infinite or missing one).
struct ItsLadder {
  std::map<int, std::vector<double>> its;  // lag (frames) -> timescales
  int model_lag = 0;                       // the model's lag (0: none marked)
  std::vector<double> model_timescales;    // at model_lag
  std::vector<double> model_errors;        // Bayesian standard deviations (empty: none)
  // Bayesian builds: lag -> standard deviation of each timescale (empty: none, or older runs).
  std::map<int, std::vector<double>> errors;
};

// Implied timescales vs lag: one line per timescale, the region below the lag (not resolved)
// shaded, each timescale's ± σ band across lags where the build is Bayesian, and the model's
// timescales ± their σ as error bars. Writes DIR/its.dat, DIR/its_band.dat, DIR/its_err.dat.
std::string its_plot(const ItsLadder& ladder, const TimeAxis& time,
                     const std::filesystem::path& dir, const std::string& title);

struct TimescaleSeries {
  std::vector<std::int64_t> iterations;         // one per MSM build
  std::vector<std::vector<double>> timescales;  // per build (frames)
  std::vector<std::vector<double>> errors;      // per build: Bayesian σ (empty: none)
  int lag = 0;                                  // of the latest build (frames)
};

// The timescales of every build vs iteration, at most `n_plot` of them, each with its shaded
// band t ± σ where the builds are Bayesian. Writes DIR/series.dat. extra: more plot elements
// appended to the plot command (", ..." or "").
std::string timescale_series_plot(const TimescaleSeries& series, const TimeAxis& time,
                                  std::size_t n_plot, const std::filesystem::path& dir,
                                  const std::string& title, const std::string& extra = "");
// The readable time unit of a series: its largest finite timescale.
TimeScale series_time_scale(const TimescaleSeries& series, const TimeAxis& time);

}  // namespace trails::report
