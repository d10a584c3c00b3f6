// convergence.png of `trails plot`: how a campaign converged, as panels over one shared
// iteration axis — the exploration fraction (occupied / total bins), the occupied bins, and the
// slowest implied timescale of every MSM build (± its Bayesian σ where there is one). Each
// panel is one ConvergencePanel, so a further series (the weighted-ensemble MFPT estimate once
// it is recorded) is one more panel (docs/report.md, "Convergence over iterations").
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "trails/report/common/its_picture.h"
#include "trails/store/run_store.h"

namespace trails::report {

struct ConvergencePanel {
  std::string ylabel;
  std::string data;      // gnuplot data: "iteration value ..." rows
  std::string plot;      // the plot command's elements, `DATA` standing for the data file
  std::string settings;  // e.g. "set logscale y\n"
};

// The panels of a run: exploration fraction and occupied bins from `summaries`; the slowest
// timescale from `msm` when it has a build.
std::vector<ConvergencePanel> convergence_panels(
    const std::vector<store::IterationSummary>& summaries, const TimescaleSeries& msm,
    const TimeAxis& time);

// gnuplot commands (terminal and output set by the caller) drawing `panels` stacked, aligned,
// over iterations [first, last]; data files go to `dir`.
std::string convergence_plot(const std::vector<ConvergencePanel>& panels, std::int64_t first,
                             std::int64_t last, const std::filesystem::path& dir,
                             const std::string& title);

}  // namespace trails::report
