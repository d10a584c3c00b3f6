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
  void rewrite(const std::vector<store::IterationSummary>& committed);
  void append(const store::IterationSummary& iteration);

  static std::string header(const config::CampaignConfig& config);
  // msm: append the msm_build_s and msm_wait_s columns (runs with msm.enabled).
  static std::string row(const store::IterationSummary& iteration, bool msm = false);

 private:
  std::filesystem::path path_;
  std::string header_;
  bool msm_ = false;
  std::FILE* file_ = nullptr;
};

}  // namespace trails::campaign
