// `trails analyze RUN_DIR`: Trails-MD's `trails-md-analyze` report (compat:analyze-report) for a
// run with in-loop MSM builds — one 2×2 PNG (implied timescales vs lag, timescale convergence,
// VAMP-2 convergence, free-energy surface of the first two CVs) drawn by one gnuplot call, a text
// summary and, on request, the same numbers as JSON (docs/analysis.md, "`trails analyze`").
// Reads the run store only. Bad input (not a run, no MSM builds, bad options) throws
// InputError/UsageError (exit 2) before anything is written.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/report/analyze/free_energy.h"

namespace trails::report {

struct AnalyzeRequest {
  std::filesystem::path run_dir;
  std::optional<std::filesystem::path> outfile;  // default run_dir/analysis/convergence_report.png
  // K: free energies in kJ/mol at this temperature. None: the run's own unit and temperature
  // (energy_scale, free_energy.h): engine.temperature in kJ/mol, a built-in run's engine.kT in
  // its reduced units.
  std::optional<double> temperature;
  // Walker segment length in ps (spawning.step × engine.dt), Trails-MD's --tau-ps; the frame
  // interval is then tau_ps × stride / step. Without it: stride × engine.dt for molecular
  // engines, frames for the built-in engine (its dt is in reduced units).
  std::optional<double> tau_ps;
  // Leading fraction of the build series dropped before the tail means (Trails-MD applies it to
  // the weighted-ensemble flux series; Trails has none, see docs).
  double discard_fraction = 0.5;
  std::optional<std::filesystem::path> json_out;
};

struct AnalyzeResult {
  nlohmann::json summary;  // the --json document
  std::string text;        // the text summary (stdout)
  std::filesystem::path outfile;
};

AnalyzeResult analyze_run(const AnalyzeRequest& request);

// The request's numbers (temperature, tau_ps, discard_fraction): UsageError naming the option
// when one is out of range. analyze_run calls it first; `trails report` calls it before it
// draws anything.
void check_analyze_numbers(const AnalyzeRequest& request);

}  // namespace trails::report
