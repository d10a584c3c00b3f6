// `trails msm`: a Markov state model of given discrete trajectories, or of a run directory's
// CVs after k-means clustering. Returns the JSON document described in docs/analysis.md
// ("Standalone use"): active_set (original state ids), stationary_distribution,
// transition_matrix, timescales (frames, -lag/ln|lambda|), its (lag -> timescales), and with
// pcca = K the PCCA+ block "pcca" (memberships, assignments, sets of original ids, populations,
// coarse_transition_matrix, crispness, mfpt between the crisp sets in frames). With --run the
// "clustering" block also gives frame_ps (null when the run's frames have no physical length).
// Throws InputError/UsageError (exit 2) on bad input or options.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/core/output_target.h"

namespace trails::report {

struct MsmRequest {
  std::vector<std::filesystem::path> dtrajs;     // one file per trajectory
  std::optional<std::filesystem::path> run_dir;  // instead of dtrajs: cluster this run's CVs
  int clusters = 100;                            // --run only: k-means microstates
  std::uint64_t seed = 42;                       // --run only: k-means++ seed
  int lag = 1;
  bool reversible = true;
  std::vector<int> its_lags;
  int n_timescales = 5;
  std::optional<int> pcca;  // PCCA+ metastable sets (reversible models only)
};

nlohmann::json msm_report(const MsmRequest& request);
// `trails msm --plot PNG`: the implied timescales of a msm_report() document (its "its" ladder
// and the model's lag) drawn as its_picture.h draws its.png, in physical time when the model
// is of a run whose frames have one (clustering.frame_ps), else in frames.
void plot_msm_its(const nlohmann::json& model, const core::OutputTarget& png);
// `trails msm --pcca K --network PNG`: the PCCA+ sets of a msm_report() document as
// msm_network.h draws network.png (nodes sized by population, MFPT and coarse transition
// probability on the arrows). The model must have a "pcca" block (InternalError otherwise).
void plot_msm_network(const nlohmann::json& model, const core::OutputTarget& png);
// Discrete trajectories of a run: per-walker segments of its CVs, clustered (k-means).
std::vector<std::vector<int>> run_dtrajs(const std::filesystem::path& run_dir, int clusters,
                                         std::uint64_t seed, nlohmann::json* info = nullptr);
// The dtrajs behind msm_report (exposed for tests).
nlohmann::json msm_of_dtrajs(const std::vector<std::vector<int>>& dtrajs, int lag, bool reversible,
                             const std::vector<int>& its_lags, int n_timescales,
                             std::optional<int> pcca = std::nullopt);

}  // namespace trails::report
