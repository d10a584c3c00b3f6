// The ledger's msm_builds payload (docs/file-formats.md, "msm_builds") as one typed record:
// written by MsmBuild::to_json() (MsmBuild -> MsmBuildRecord -> JSON), read by every report
// (status, plot, analyze) through parse_msm_build_record. A renamed or missing key, a value of
// another type or another record version is an error that names the build and the key, never a
// value that silently reads as NaN or a default.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

namespace trails::msm {

inline constexpr int kMsmBuildRecordVersion = 2;  // version 1 (no its_errors) is still read

// One field per payload key, in the JSON's types. Doubles the writer cannot write as numbers
// (NaN, infinities) are JSON null, and read back as NaN inside arrays and matrices; an optional
// field is null in the JSON when it holds no value.
struct MsmBuildRecord {
  std::int64_t iteration = 0;  // the build covers every frame of iterations 0..iteration
  std::int64_t frames = 0;     // frames covered (segments of one frame excluded)
  bool refit = false;          // this build reclustered all frames
  int lagtime = 0;
  int n_microstates = 0;
  int n_active = 0;                             // size of active_set
  std::vector<int> active_set;                  // microstate ids, largest strongly connected set
  std::vector<double> stationary_distribution;  // on the active set
  Eigen::MatrixXd transition_matrix;            // n_active x n_active (0 x 0 without a model)
  Eigen::MatrixXd count_matrix;                 // sliding (mle) or effective (bayesian) counts
  std::vector<double> timescales;               // frames; NaN where the JSON has null (infinite)
  std::string estimator;                        // "mle" | "bayesian"
  std::optional<std::vector<double>> timescale_errors;        // bayesian only; NaN where null
  std::optional<int> n_metastable;                            // msm.n_metastable
  std::optional<std::vector<int>> metastable_assignments;     // PCCA+ crisp set per active state
  std::optional<std::vector<double>> metastable_populations;  // sum of pi per set
  std::optional<Eigen::MatrixXd> metastable_memberships;      // n_active x n_metastable
  std::optional<double> pcca_crispness;
  std::optional<double> vamp2;             // sum of squared eigenvalues of T
  std::map<int, std::vector<double>> its;  // lag -> timescales (NaN where null)
  // bayesian: lag -> std of each timescale over posterior samples (null in version 1 records)
  std::optional<std::map<int, std::vector<double>>> its_errors;
  bool mle_converged = true;
  std::optional<std::vector<double>> cluster_centers;  // k x d row-major
  std::int64_t min_segment = 0;                        // shortest segment (frames) used
  std::string note;                                    // why there is no model, or ""
  // The convergence monitor after this build.
  bool lag_guard_ok = true;
  bool criteria_met = false;
  std::string criteria;  // each criterion's verdict, "; "-separated
  int streak = 0;
  bool converged = false;
  std::string reason;
};

// Every key of a record (besides "record_version"), in the order of the struct.
std::span<const std::string_view> msm_build_record_keys();

nlohmann::json to_json(const MsmBuildRecord& record);

// Throws core::CorruptionError naming `where` (e.g. "ledger.sqlite, MSM build of iteration 12")
// and the key when the payload is not an object, has another version, lacks a key, has a key
// this version does not know, or holds a value of another type (a matrix with rows of different
// lengths, an its lag that is not an integer, an integer out of range, an unknown estimator).
MsmBuildRecord parse_msm_build_record(const nlohmann::json& record, const std::string& where);

}  // namespace trails::msm
