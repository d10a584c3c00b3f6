// Private to `trails analyze` (analyze.h): the numbers one report is made of, gathered from the
// run store once, and the three things made from them (the --json document, the text summary,
// the gnuplot figure). analyze.cpp validates, gathers and writes; nothing here writes to the run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/analysis/series_tail.h"
#include "trails/core/temp_dir.h"
#include "trails/msm/msm_build_record.h"
#include "trails/report/analyze/analyze.h"
#include "trails/report/analyze/plot_fes.h"
#include "trails/report/common/time_axis.h"

namespace trails::report::detail {

struct ReportData {
  std::size_t n_builds = 0;           // every MSM build of the run
  std::int64_t latest_iteration = 0;  // of the latest build with a model
  msm::MsmBuildRecord latest;         // that build's ledger payload
  TimeAxis time;
  EnergyScale scale;  // the run's energy unit and temperature (energy_scale)
  double kT = 0.0;    // in scale.unit
  // Frames of every committed iteration (n × d) and their weights (empty: unweighted).
  int d = 0;
  std::vector<double> points;
  std::vector<double> weights;
  std::vector<double> ensemble_weights;  // a weighted ensemble's walker weights (empty: none)
  std::string weighting;
  std::string weighting_short;  // for the panel's title: "pi-weighted", "WE-weighted"
  std::vector<std::string> cv_names;
  std::vector<std::string> cv_labels;  // "name (unit)", cv_axes.h
  int fes_dims = 0;
  analysis::FreeEnergySurface fes;
  double fes_max = 0.0;
  std::size_t fes_occupied = 0;
  // Series over the builds with a model.
  std::vector<std::int64_t> iterations;
  std::vector<double> vamp2;
  std::vector<std::vector<double>> ts_series;  // per build, padded with NaN to `width`
  std::vector<std::vector<double>> ts_errors;  // per build: Bayesian σ (empty: none)
  std::size_t width = 0;
  analysis::SeriesTail vamp2_tail;
  std::vector<analysis::SeriesTail> ts_tail;  // per timescale column
  // The latest build.
  std::vector<double> timescales;  // frames (+inf for an infinite one)
  std::vector<double> timescales_ps;
  std::vector<std::pair<int, std::vector<double>>> its;  // lag -> timescales, lags ascending
  int lag = 0;
  std::vector<double> metastable_populations;  // PCCA+ (empty when none)
  std::vector<double> metastable_free_energy;  // -kT ln p, shifted to a minimum of 0
};

bool has_model(const msm::MsmBuildRecord& build);  // a transition matrix on >= 2 states

nlohmann::json finite_or_null(double v);
// The scale's temperature (K), null in reduced units.
nlohmann::json temperature_json(const EnergyScale& scale);
nlohmann::json finite_or_null(const std::vector<double>& v);
double number_or_nan(const nlohmann::json& j);
std::string num(double v, const char* fmt_spec = "{:.6g}");

// analyze_summary.cpp
nlohmann::json summary_json(const ReportData& r, const AnalyzeRequest& request,
                            const std::filesystem::path& outfile);
std::string summary_text(const ReportData& r, const AnalyzeRequest& request);

// analyze_figure.cpp: draws the 2×2 report into `png` (in a temporary directory of its own).
class ReportFigure {
 public:
  ReportFigure() = default;
  ReportFigure(const ReportFigure&) = delete;
  ReportFigure& operator=(const ReportFigure&) = delete;
  // Draws the figure; returns the PNG's bytes. Throws InputError when gnuplot fails.
  std::string draw(const ReportData& r, const AnalyzeRequest& request);

 private:
  void write_data(const ReportData& r) const;  // its.dat, builds.dat, fes.dat
  std::string script(const ReportData& r, const AnalyzeRequest& request) const;
  std::string its_panel(const ReportData& r) const;
  std::string timescale_panel(const ReportData& r, const std::string& transient) const;
  std::string vamp2_panel(const ReportData& r, const std::string& transient) const;
  std::string free_energy_panel(const ReportData& r) const;
  const std::filesystem::path& dir() const { return scratch_.path(); }
  core::TempDir scratch_{"trails-analyze"};
};

}  // namespace trails::report::detail
