// Learned spaces: the learned dimension against n_bins, lags that fit in a walker segment, and
// the molecular feature keys (cross_checks.h).
#include <algorithm>
#include <string>
#include <vector>

#include "trails/config/cross_checks.h"

namespace trails::config::detail {

using json = nlohmann::json;

// Learned spaces: the learned dimension is len(n_bins); every space but PCA trains on
// time-lagged pairs, which must fit in a walker segment.
void check_learned_space(const RawConfig& raw, Problems& problems) {
  if (!raw.usable("space_mode") || raw.value("space_mode") == "fixed") return;
  std::string nbins_key;
  const std::vector<int> n_bins = effective_n_bins(raw, &nbins_key);
  const Entry& latent = raw.at("adaptive_model.latent_dim");
  if (latent.present && latent.valid && raw.usable(nbins_key) &&
      latent.value.get<int>() != static_cast<int>(n_bins.size())) {
    problems.add(
        latent.value_at, "adaptive_model.latent_dim",
        std::to_string(latent.value.get<int>()) + " differs from the " +
            count(n_bins.size(), "axis", "axes") + " of " + nbins_key +
            "; the learned dimension is len(n_bins): remove latent_dim or make them equal");
  }
  // The built-in engine's features are its coordinates: the learned space cannot have more
  // dimensions than the start point has (molecular feature counts are checked before the MD).
  const json& start = raw.value("system.start");
  if (is_builtin(raw) && raw.usable(nbins_key) && start.is_array() && !start.empty()) {
    const std::size_t coords = start[0].is_array() ? start[0].size() : start.size();
    if (n_bins.size() > coords) {
      problems.add(raw.at(nbins_key).value_at, nbins_key,
                   count(n_bins.size(), "axis", "axes") + " ask for a " +
                       std::to_string(n_bins.size()) +
                       "-dimensional learned space (len(n_bins)), but the built-in engine's "
                       "features are its " +
                       std::to_string(coords) + " coordinates; use at most " +
                       std::to_string(coords) + " n_bins axes");
    }
  }
  const Entry& lag = raw.at("adaptive_model.lagtime");
  const std::string mode = raw.value("space_mode").get<std::string>();
  if (raw.usable("spawning.step") && raw.usable("spawning.stride") && lag.valid && mode != "pca") {
    const int frames = raw.value("spawning.step").get<int>() /
                       std::max(1, raw.value("spawning.stride").get<int>());
    const int tau = lag.value.get<int>();
    if (frames <= tau) {
      problems.add(lag.present ? lag.value_at : raw.at("spawning.step").value_at,
                   "adaptive_model.lagtime",
                   std::to_string(tau) + " frames is not shorter than a walker segment (" +
                       std::to_string(frames) + " frames = step / stride), so space_mode " + mode +
                       " gets no time-lagged pairs; lower the lagtime or raise spawning.step");
    }
  }
}

// Learned-space features (compat:learned-features, compat:vamp-column-selection): molecular feature
// keys need a molecular engine, candidate types are feature types, and the selection lag must fit
// in a walker segment.
void check_learned_features(const RawConfig& raw, Problems& problems) {
  if (is_builtin(raw)) {
    for (const char* key :
         {"adaptive_feature_type", "adaptive_angle_encoding", "system.feature_selection"}) {
      const Entry& e = raw.at(key);
      if (!e.present || !e.valid || e.value == e.spec->default_value) continue;  // Trails-MD files
      problems.add(e.value_at, key,
                   "only applies to molecular engines (engine.md_engine: openmm); the built-in "
                   "engine's learned-space features are its particle coordinates; remove the key "
                   "or set it to its default (" +
                       e.spec->default_value.get<std::string>() + ")");
    }
    const Entry& c = raw.at("feature_selection.candidate_feature_types");
    if (c.present && c.valid && c.value.is_array() && !c.value.empty()) {
      problems.add(c.value_at, "feature_selection.candidate_feature_types",
                   "feature-type ranking needs a molecular engine (engine.md_engine: openmm); "
                   "the built-in engine has one feature type, its particle coordinates; remove "
                   "the key or set it to []");
    }
  }
  const Entry& c = raw.at("feature_selection.candidate_feature_types");
  if (c.present && c.valid && c.value.is_array()) {
    std::vector<std::string> seen;
    for (std::size_t i = 0; i < c.value.size(); ++i) {
      const std::string t = c.value[i].get<std::string>();
      const std::string path =
          "feature_selection.candidate_feature_types[" + std::to_string(i) + "]";
      if (t != "distances" && t != "fitted_coords" && t != "phi_psi") {
        problems.add(
            element_or_value(c, i), path,
            "\"" + t + "\" is not a feature type; use distances, fitted_coords or phi_psi");
      } else if (std::find(seen.begin(), seen.end(), t) != seen.end()) {
        problems.add(element_or_value(c, i), path, t + " is listed twice; list each type once");
      }
      seen.push_back(t);
    }
  }
  if (!raw.usable("space_mode") || raw.value("space_mode") == "fixed") return;
  const Entry& on = raw.at("feature_selection.enabled");
  if (!(on.valid && on.value.is_boolean() && on.value.get<bool>())) return;
  std::string nbins_key;
  const std::vector<int> n_bins = effective_n_bins(raw, &nbins_key);
  const Entry& maxf = raw.at("feature_selection.max_features");
  if (maxf.present && maxf.valid && maxf.value.is_number_integer() && raw.usable(nbins_key) &&
      maxf.value.get<int>() < static_cast<int>(n_bins.size())) {
    problems.add(maxf.value_at, "feature_selection.max_features",
                 std::to_string(maxf.value.get<int>()) + " is fewer than the " +
                     count(n_bins.size(), "learned dimension", "learned dimensions") + " of " +
                     nbins_key + "; the model needs at least one feature column per dimension");
  }
  const Entry& lag = raw.at("feature_selection.lagtime");
  if (raw.usable("spawning.step") && raw.usable("spawning.stride") && lag.valid) {
    const int frames = raw.value("spawning.step").get<int>() /
                       std::max(1, raw.value("spawning.stride").get<int>());
    const int tau = lag.value.get<int>();
    if (frames <= tau) {
      problems.add(lag.present ? lag.value_at : on.value_at, "feature_selection.lagtime",
                   std::to_string(tau) + " frames is not shorter than a walker segment (" +
                       std::to_string(frames) +
                       " frames = step / stride), so VAMP-2 feature selection gets no "
                       "time-lagged pairs; lower feature_selection.lagtime or raise spawning.step");
    }
  }
}

}  // namespace trails::config::detail
