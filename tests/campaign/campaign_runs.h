// Shared by the tests that run the whole campaign driver in-process (campaign/campaign.h) on the
// built-in engine, as `trails run` does without the command around it: a configuration written
// as YAML and loaded, the small Müller–Brown campaigns of the shell tests (tests/scripts/lib/
// common.bash), a progress sink that records what the driver reports, one call that runs, and
// the rows of the run's output.log.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/files.h"
#include "trails/campaign/campaign.h"
#include "trails/config/load.h"

namespace trails::campaign::test {

// What the driver reported, in order.
class Recorder final : public ProgressSink {
 public:
  void started(const std::vector<std::string>& /*banner*/) override {}
  void iteration(const IterationReport& report) override { iterations.push_back(report); }
  void finished(const CampaignOutcome& outcome) override { outcomes.push_back(outcome); }
  std::vector<IterationReport> iterations;
  std::vector<CampaignOutcome> outcomes;
};

// `yaml` as DIR/config.yaml, loaded as `trails run` loads it (a relative outdir is DIR's).
inline config::CampaignConfig load_yaml(const std::filesystem::path& dir, const std::string& yaml) {
  return config::load_campaign_config(test_support::write_text(dir / "config.yaml", yaml));
}

// Runs (or with `resume` continues) the campaign to `iterations` in total.
inline CampaignOutcome run(const config::CampaignConfig& c, std::int64_t iterations,
                           bool resume = false, ProgressSink* progress = nullptr) {
  RunOptions o;
  o.target_iterations = iterations;
  o.resume = resume;
  Recorder quiet;
  return run_campaign(c, o, progress != nullptr ? *progress : quiet);
}

// common.bash's write_config: 8 Müller–Brown walkers (overdamped, kT 15) of 200 steps at stride
// 10 (20 frames) on a fixed 30×30 grid, seed 7; by default the density spawner, hard restarts.
struct MullerBrown {
  std::string outdir = "run";
  int max_workers = 2;
  std::string spawn_scheme = "density";
  std::string spawn_type = "hard";
  std::vector<std::string> spawning;  // further lines of the spawning block
  std::vector<std::string> binning;   // the lines of a binning block; none when empty

  std::string yaml() const {
    std::string text = "outdir: " + outdir +
                       "\nrandom_seed: 7\nn_bins: [30, 30]\nmin_values: [-1.5, -0.5]\n"
                       "max_values: [1.2, 2.0]\nspace_mode: fixed\nsystem:\n"
                       "  start: [-0.558, 1.442]\nengine:\n  md_engine: builtin\n"
                       "  potential: muller_brown\n  integrator: overdamped\n  kT: 15.0\n"
                       "  dt: 0.0001\nspawning:\n  walker: 8\n  step: 200\n  stride: 10\n"
                       "  max_workers: " +
                       std::to_string(max_workers) + "\n  spawn_scheme: " + spawn_scheme +
                       "\n  spawn_type: " + spawn_type + "\n";
    for (const auto& line : spawning) text += "  " + line + "\n";
    if (!binning.empty()) text += "binning:\n";
    for (const auto& line : binning) text += "  " + line + "\n";
    return text;
  }
};

// common.bash's bad_start_config: 4 Müller–Brown walkers of 100 steps at stride 10 (10 frames);
// walker 1 starts at (−40, 40), where the exponentials overflow, so it fails in iteration 0.
inline std::string bad_start_yaml(const std::string& outdir, double min_success_fraction) {
  return "outdir: " + outdir + "\nn_bins: [30, 30]\nmin_values: [-1.5, -0.5]\n" +
         "max_values: [1.2, 2.0]\nmin_success_fraction: " + std::to_string(min_success_fraction) +
         "\nsystem:\n  start: [[-0.558, 1.442], [-40.0, 40.0], [-0.558, 1.442], "
         "[-0.558, 1.442]]\nengine:\n  md_engine: builtin\n  potential: muller_brown\n"
         "  kT: 15.0\n  dt: 0.0001\nspawning:\n  walker: 4\n  step: 100\n  stride: 10\n";
}

// output.log's rows (docs/file-formats.md): after the `# key=value` lines, a line of column
// names, then one tab-separated row per committed iteration.
inline std::vector<std::map<std::string, std::string>> run_log_rows(
    const std::filesystem::path& file) {
  std::istringstream in(test_support::read_text(file));
  std::vector<std::string> columns;
  std::vector<std::map<std::string, std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cells;
    std::istringstream cells_in(line);
    for (std::string cell; std::getline(cells_in, cell, '\t');) cells.push_back(cell);
    if (columns.empty()) {
      columns = cells;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t k = 0; k < cells.size() && k < columns.size(); ++k) row[columns[k]] = cells[k];
    rows.push_back(row);
  }
  return rows;
}

}  // namespace trails::campaign::test
