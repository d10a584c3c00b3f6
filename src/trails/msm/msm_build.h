// One in-loop MSM build (msm_stage.h): the estimate MsmStage hands to the campaign, the MSM
// spawner and the convergence monitor, and — through MsmBuildRecord (msm_build_record.h) — the
// ledger's msm_builds payload (docs/file-formats.md, "msm_builds").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "trails/analysis/clustering.h"
#include "trails/msm/msm_build_record.h"

namespace trails::msm {

struct MsmBuild {
  std::int64_t iteration = 0;  // the iteration whose frames (and all before) it covers
  std::int64_t frames = 0;     // frames covered
  bool refit = false;          // this build reclustered all frames
  int lag = 0;
  int n_microstates = 0;
  std::vector<int> active_set;     // microstate ids of the largest strongly connected set
  std::vector<double> pi;          // stationary distribution on the active set
  Eigen::MatrixXd T;               // reversible MLE on the active set
  Eigen::MatrixXd C;               // sliding counts on the active set
  std::vector<double> timescales;  // frames; at most n_timescales, at most n_active - 1
  bool bayesian = false;           // estimator: bayesian (effective counts, posterior samples)
  std::vector<double> timescale_errors;  // Bayesian: std of each timescale over the samples
  // PCCA+ (msm.n_metastable = m, when 2 <= m < n_active): fuzzy memberships n_active x m, crisp
  // set per active state, and the sum of pi over each crisp set (Trails-MD's populations).
  int n_metastable = 0;
  Eigen::MatrixXd memberships;
  std::vector<int> metastable_assignments;
  std::vector<double> metastable_populations;
  double crispness = 0.0;
  std::optional<double> vamp2;  // sum of squared eigenvalues of T (>= 1)
  std::vector<int> its_lags;
  std::vector<std::vector<double>> its;  // per lag of the ladder (NaN where too few states)
  // Bayesian: per lag of the ladder, the std of each timescale over posterior samples.
  std::vector<std::vector<double>> its_errors;
  bool mle_converged = true;
  std::int64_t min_segment = 0;  // shortest segment (frames) used
  std::string note;              // why there is no model (fewer than 2 active states), or ""
  double build_s = 0.0;          // wall time of the build itself
  // For the MSM spawner (compat:msm-spawner): the clustering this model was estimated on (its
  // version counts refits), the frames per active state in the counted data (Trails-MD's
  // counts_per_state), and right eigenvectors psi_2.. of T (n_active x n; normalised sum_i pi_i
  // psi_i^2 = 1).
  std::shared_ptr<const analysis::ClusterModel> clustering;
  std::int64_t clustering_version = 0;
  std::vector<double> counts_per_state;
  Eigen::MatrixXd eigenvectors;
  // Filled by join(): convergence monitor after this build.
  bool lag_guard_ok = true;
  // Occupied fraction of the campaign grid's bins at the build's iteration (not recorded).
  double explored_fraction = 1.0;
  bool criteria_met = false;
  std::string criteria;  // each criterion's verdict, "; "-separated (also in the log line)
  int streak = 0;
  bool converged = false;
  std::string reason;

  // The ledger's msm_builds payload: record() holds what to_json() writes (= to_json(record())).
  MsmBuildRecord record() const;
  nlohmann::json to_json() const;
};

}  // namespace trails::msm
