// The adaptive-campaign driver (compat:iteration-order): per iteration, run every walker
// through the executor, project frames into the fixed CV space, update the incremental bin
// tables, spawn restart frames, update coverage/resolution/convergence, and commit the iteration
// atomically to the run store. Resumes bitwise from the last committed iteration.
// Throws ConfigError/InputError/UsageError (exit 2) before touching anything; EngineError when
// too many walkers fail; StoreError on I/O failure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trails/config/campaign_config.h"
#include "trails/store/progress_file.h"
#include "trails/store/run_store.h"

namespace trails::campaign {

struct RunOptions {
  std::int64_t target_iterations = 1;  // total iterations the campaign should have
  bool resume = false;
  // Run the in-loop MSM build on a background thread during the next iteration's MD. Results
  // are identical either way; the environment variable TRAILS_MSM_OVERLAP=0 also turns it off.
  bool overlap_msm = true;
};

struct IterationReport {
  store::IterationSummary summary;  // what was committed (and logged) for the iteration
  std::int64_t target_iterations = 0;
  std::int64_t walkers = 0;  // walkers run, failed ones included
  std::vector<int> n_bins;   // grid resolution after this iteration
  double eta_s = 0.0;
  double commit_s = 0.0;  // part of summary.analysis_s spent in the atomic commit
};

struct CampaignOutcome {
  bool converged = false;
  std::string reason;
  std::int64_t completed_iterations = 0;  // committed in the run directory
  std::int64_t requested_iterations = 0;
  std::int64_t ran_now = 0;  // iterations run by this invocation
};

class ProgressSink {
 public:
  virtual ~ProgressSink() = default;
  virtual void started(const std::vector<std::string>& banner) = 0;
  virtual void iteration(const IterationReport& report) = 0;
  // Inside an iteration, as walker results stream in (first with none done); optional.
  virtual void walkers(const store::WalkerProgress& /*progress*/) {}
  virtual void finished(const CampaignOutcome& outcome) = 0;
};

CampaignOutcome run_campaign(const config::CampaignConfig& config, const RunOptions& options,
                             ProgressSink& progress);

}  // namespace trails::campaign
