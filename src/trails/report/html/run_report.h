// `trails report RUN_DIR`: one self-contained HTML page of a committed run (docs/report.md, "The
// HTML run report") at RUN_DIR/report/index.html (or OUT_DIR/index.html): the run summary of
// `trails status`, every picture that `trails plot` and `trails analyze` draw (embedded as
// base64 data: URIs, so the page is one file), the MSM builds, the analysis tables, the
// convergence verdicts and the failed walkers with what they logged. Plain HTML and CSS.
// Reads the run store only (committed iterations; safe on a run being written). The page is the
// only file written: the pictures are drawn into a temporary directory, and the page is staged
// and committed as core/output_target.h does. A directory that is not a run, or a run without a
// committed iteration, is an InputError (exit 2) and nothing is written.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trails::report {

struct RunReportRequest {
  std::filesystem::path run_dir;
  std::optional<std::filesystem::path> out_dir;  // default run_dir/report
  // Passed to `trails plot` and `trails analyze` (free energies in kJ/mol at this T); unset:
  // the run's own energy unit and temperature (energy_scale, free_energy.h).
  std::optional<double> temperature_k;
  std::optional<double> tau_ps;  // `trails analyze --tau-ps` (walker segment length in ps)
};

struct RunReportResult {
  std::filesystem::path index;        // the page written
  std::vector<std::string> pictures;  // embedded, in page order ("trails plot: coverage.png")
  std::string analysis_note;          // why `trails analyze` drew nothing ("" when it did)
};

RunReportResult write_run_report(const RunReportRequest& request);

// What the page says under a picture, by its file name: a table of the pictures Trails draws,
// and a generic caption for any other name (a picture added to `trails plot` or `analyze` later
// appears with it until the table learns its name).
struct PictureCaption {
  std::string title;
  std::string caption;  // how to read it
};
// `energy`: the run's energy unit and temperature in words ("kJ/mol at T = 300 K", "reduced
// units at kT = 15"), which the free-energy captions name.
PictureCaption picture_caption(const std::string& file_name, const std::string& energy = "");

}  // namespace trails::report
