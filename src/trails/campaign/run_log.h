// output.log: Trails-MD's TSV run log (compat:output-log) so existing scripts keep working: a
// `# key=value` header, a column line, one row per committed iteration. It is a human file
// derived from the ledger: on start/resume it is rewritten from the committed iterations
// (dropping rows of a crashed iteration, adding rows a crash kept from being appended).
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "trails/config/campaign_config.h"
#include "trails/store/run_store.h"

namespace trails::campaign {

class RunLog {
 public:
  RunLog(std::filesystem::path path, const config::CampaignConfig& config);
  ~RunLog();
  RunLog(const RunLog&) = delete;
  RunLog& operator=(const RunLog&) = delete;

  // Atomically replaces the file with header + one row per summary, then opens it for appends.
  // `recycling`: the run's recycled flux (RunStore::recycling), joined to the rows by iteration.
  void rewrite(std::vector<store::IterationSummary> committed,
               const std::vector<store::RecyclingRow>& recycling = {});
  void append(const store::IterationSummary& iteration);

  static std::string header(const config::CampaignConfig& config);
  // msm: append the msm_build_s and msm_wait_s columns (runs with msm.enabled).
  static std::string row(const store::IterationSummary& iteration, bool msm = false);
  // The recycling columns of a row: the iteration's recycled flux and walkers, and the Hill MFPT
  // of the flux so far (first half dropped), in the unit of tau (step × engine.dt).
  std::string recycling_columns(const store::IterationSummary& iteration);

 private:
  std::filesystem::path path_;
  std::string header_;
  bool msm_ = false;
  bool recycling_ = false;      // spawn_scheme we with recycle_target
  double tau_ = 0.0;            // spawning.step × engine.dt
  std::vector<double> prefix_;  // prefix sums of the recycled flux, from 0
  std::FILE* file_ = nullptr;
};

}  // namespace trails::campaign
