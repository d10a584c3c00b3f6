#include "trails/msm/msm_build.h"

namespace trails::msm {

// Optional payload keys are null exactly where the build has nothing: no Bayesian errors for
// estimator mle, no PCCA+ without msm.n_metastable or with too few active states, no centres
// without a clustering (docs/file-formats.md, "msm_builds").
MsmBuildRecord MsmBuild::record() const {
  MsmBuildRecord r;
  r.iteration = iteration;
  r.frames = frames;
  r.refit = refit;
  r.lagtime = lag;
  r.n_microstates = n_microstates;
  r.n_active = static_cast<int>(active_set.size());
  r.active_set = active_set;
  r.stationary_distribution = pi;
  r.transition_matrix = T;
  r.count_matrix = C;
  r.timescales = timescales;
  r.estimator = bayesian ? "bayesian" : "mle";
  if (bayesian) r.timescale_errors = timescale_errors;
  if (n_metastable > 0) r.n_metastable = n_metastable;
  if (!metastable_assignments.empty()) r.metastable_assignments = metastable_assignments;
  if (!metastable_populations.empty()) r.metastable_populations = metastable_populations;
  if (memberships.size() != 0) {
    r.metastable_memberships = memberships;
    r.pcca_crispness = crispness;
  }
  r.vamp2 = vamp2;
  for (std::size_t i = 0; i < its_lags.size(); ++i) r.its[its_lags[i]] = its[i];
  if (bayesian && its_errors.size() == its_lags.size()) {
    r.its_errors.emplace();
    for (std::size_t i = 0; i < its_lags.size(); ++i) (*r.its_errors)[its_lags[i]] = its_errors[i];
  }
  r.mle_converged = mle_converged;
  if (clustering) {
    const auto& c = clustering->centres;  // row-major
    r.cluster_centers = std::vector<double>(c.data(), c.data() + c.size());
  }
  r.min_segment = min_segment;
  r.note = note;
  r.lag_guard_ok = lag_guard_ok;
  r.criteria_met = criteria_met;
  r.criteria = criteria;
  r.streak = streak;
  r.converged = converged;
  r.reason = reason;
  return r;
}

nlohmann::json MsmBuild::to_json() const { return msm::to_json(record()); }

}  // namespace trails::msm
