// msm.*: the convergence criteria mapping, PCCA+ sets against microstates, and lags against the
// walker segment (cross_checks.h).
#include <algorithm>
#include <string>
#include <vector>

#include "trails/config/cross_checks.h"

namespace trails::config::detail {
namespace {

// msm.convergence_criteria is a free mapping in the table; its names and parameters are checked
// here (compat:convergence-monitor; those needing features not built are rejected by name).
void check_msm_criteria(const RawConfig& raw, Problems& problems) {
  const Entry& crit = raw.at("msm.convergence_criteria");
  if (!crit.present || !crit.valid || !crit.value.is_object()) return;
  const std::string key = "msm.convergence_criteria";
  for (const auto& [name, params] : crit.value.items()) {
    std::string path = key;
    path += ".";
    path += name;
    std::vector<std::string> allowed;
    if (name == "its" || name == "implied_timescales") {
      allowed = {"tol", "n", "n_timescales"};
    } else if (name == "vamp2") {
      allowed = {"tol"};
    } else if (name == "transition_matrix") {
      allowed = {"tol", "min_flux"};
    } else if (name == "stationary_distribution") {
      allowed = {"tol"};
      const Entry& m = raw.at("msm.n_metastable");
      if (!(m.present && m.valid && m.value.is_number_integer())) {
        problems.add(crit.value_at, path,
                     "compares PCCA+ metastable populations between builds, so it needs "
                     "msm.n_metastable (e.g. 2); set it or remove the criterion");
      }
    } else if (name == "statistical_error") {
      allowed = {"tol"};
      if (!(raw.usable("msm.estimator") && raw.value("msm.estimator") == "bayesian")) {
        problems.add(crit.value_at, path,
                     "uses the Bayesian standard deviation of the slowest timescale, so it needs "
                     "msm.estimator: bayesian; set it or remove the criterion");
      }
    } else {
      problems.add(crit.value_at, path,
                   "unknown criterion; known: implied_timescales (its), vamp2, transition_matrix, "
                   "stationary_distribution, statistical_error");
      continue;
    }
    if (params.is_null()) continue;  // the criterion with its default parameters
    if (!params.is_object()) {
      problems.add(crit.value_at, path, "must be a mapping of parameters (e.g. {tol: 0.1})");
      continue;
    }
    for (const auto& [p, v] : params.items()) {
      std::string param_path = path;
      param_path += ".";
      param_path += p;
      if (std::find(allowed.begin(), allowed.end(), p) == allowed.end()) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        problems.add(crit.value_at, param_path, "unknown parameter; known: " + list);
      } else if (p == "n" || p == "n_timescales") {
        if (!v.is_number_integer() || v.get<long long>() < 1) {
          problems.add(crit.value_at, param_path, "must be an integer >= 1");
        }
      } else if (!v.is_number() || !(v.get<double>() > 0)) {
        problems.add(crit.value_at, param_path, "must be a number > 0");
      }
    }
  }
}

}  // namespace

void check_msm(const RawConfig& raw, Problems& problems) {
  check_msm_criteria(raw, problems);
  // PCCA+ splits the active microstates into n_metastable sets: at least two, fewer than states.
  const Entry& meta = raw.at("msm.n_metastable");
  if (meta.present && meta.valid && meta.value.is_number_integer()) {
    const int m = meta.value.get<int>();
    if (m < 2) {
      problems.add(meta.value_at, "msm.n_metastable",
                   "PCCA+ needs at least 2 metastable sets, got " + std::to_string(m) +
                       "; use 2 or more, or null for no PCCA+");
    } else if (raw.usable("msm.n_microstates") && m >= raw.value("msm.n_microstates").get<int>()) {
      // (an invalid n_microstates has its own problem; no comparison against a guess)
      problems.add(meta.value_at, "msm.n_metastable",
                   std::to_string(m) + " sets need more microstates than msm.n_microstates (" +
                       std::to_string(raw.value("msm.n_microstates").get<int>()) +
                       "); lower n_metastable or raise n_microstates");
    }
  }
  const Entry& enabled = raw.at("msm.enabled");
  if (!enabled.valid || enabled.value != true) return;
  if (!raw.usable("spawning.step") || !raw.usable("spawning.stride")) return;
  // A walker segment holds step/stride frames and transitions are only counted inside one.
  const int fpw = raw.value("spawning.step").get<int>() / raw.value("spawning.stride").get<int>();
  const Entry& lag = raw.at("msm.lagtime");
  if (lag.present && lag.valid && lag.value.get<int>() >= fpw) {
    problems.add(lag.value_at, "msm.lagtime",
                 std::to_string(lag.value.get<int>()) + " frames is not shorter than one walker " +
                     "segment (spawning.step / spawning.stride = " + std::to_string(fpw) +
                     " frames), so no transition could be counted; use a lag below " +
                     std::to_string(fpw));
  }
  const Entry& lags = raw.at("msm.lagtimes");
  if (lags.present && lags.valid && lags.value.is_array()) {
    for (std::size_t i = 0; i < lags.value.size(); ++i) {
      if (lags.value[i].get<int>() >= fpw) {
        problems.add(element_or_value(lags, i), "msm.lagtimes[" + std::to_string(i) + "]",
                     std::to_string(lags.value[i].get<int>()) +
                         " frames is not shorter than one walker segment (" + std::to_string(fpw) +
                         " frames)");
      }
    }
  }
}

}  // namespace trails::config::detail
