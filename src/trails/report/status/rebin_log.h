// `trails log`: the committed history re-binned on a uniform grid of your choice, as a
// per-iteration coverage table (Trails-MD's trails-md-log; docs/analysis.md, "trails log").
// Columns: iteration, frames, cumulative_frames, new_bins (bins first occupied in that
// iteration), occupied_bins (cumulative), total_bins, occupied_fraction. Reads the run store
// only (committed iterations; safe while a campaign writes) and never writes into the run
// directory: the table goes to stdout or to a file outside it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace trails::report {

struct RebinRequest {
  std::filesystem::path run_dir;
  // Empty: the run's configured n_bins. One value applies to every axis.
  std::vector<int> n_bins;
  // Empty: the run's min_values/max_values when it is a fixed-space run with one per CV, else
  // the range of the committed CV points.
  std::vector<double> min_values, max_values;
  std::optional<std::filesystem::path> output;  // none: returned for stdout
};

struct RebinTable {
  std::vector<int> n_bins;
  std::vector<double> min_values, max_values;
  std::string grid_source;  // "options", "run" or "data" (for min/max)
  std::string text;         // the header and table, as written
};

// Builds the table; writes it to request.output when given (UsageError when that lies inside
// the run directory; nothing is written then).
RebinTable rebin_log(const RebinRequest& request);

}  // namespace trails::report
