// The in-loop MSM's convergence monitor (compat:convergence-monitor, docs/analysis.md): each
// build with a model is judged by the configured criteria against the previous build (the
// monitor's baselines), the streak counts consecutive builds that meet them, and convergence is
// certified once the streak reaches msm.convergence_patience with the lag guard satisfied
// (msm.lagtime x 5 <= the shortest segment). Its state (streak and baselines) is checkpointed
// with the stage's (fix:monitor-baselines-checkpointed).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/config/campaign_config.h"
#include "trails/msm/msm_build.h"

namespace trails::msm {

class ConvergenceMonitor {
 public:
  explicit ConvergenceMonitor(const config::MsmConfig& config) : config_(config) {}

  // Judges build b, updates the streak and baselines, fills b's monitor fields (lag_guard_ok,
  // criteria_met, criteria, streak, converged, reason) and logs the build. A build without a
  // model (b.note) leaves the monitor as it is.
  void apply(MsmBuild& b);

  bool converged() const { return converged_; }
  const std::string& reason() const { return reason_; }

  // The "monitor" object of MsmStage::state() (docs/file-formats.md, element state "msm").
  nlohmann::json state() const;
  void restore(const nlohmann::json& monitor);

 private:
  using Verdict = std::pair<bool, std::string>;  // met, and the criterion's line
  // Each criterion against its baseline (implied timescales, VAMP-2, populations: the previous
  // build's values, replaced by this build's).
  Verdict timescales_verdict(const MsmBuild& b);
  Verdict vamp2_verdict(const MsmBuild& b);
  Verdict transition_matrix_verdict(const MsmBuild& b) const;
  Verdict populations_verdict(const MsmBuild& b);
  Verdict statistical_error_verdict(const MsmBuild& b) const;
  void judge(MsmBuild& b);  // the criteria, the streak and certification

  config::MsmConfig config_;
  int streak_ = 0;
  bool converged_ = false;
  std::string reason_;
  std::vector<double> prev_timescales_;
  std::optional<double> prev_vamp2_;
  std::vector<double> prev_populations_;
};

}  // namespace trails::msm
