#include "trails/msm/msm_build_record.h"

#include <array>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::msm {
namespace {

constexpr std::array<std::string_view, 30> kKeys = {"iteration",
                                                    "frames",
                                                    "refit",
                                                    "lagtime",
                                                    "n_microstates",
                                                    "n_active",
                                                    "active_set",
                                                    "stationary_distribution",
                                                    "transition_matrix",
                                                    "count_matrix",
                                                    "timescales",
                                                    "estimator",
                                                    "timescale_errors",
                                                    "n_metastable",
                                                    "metastable_assignments",
                                                    "metastable_populations",
                                                    "metastable_memberships",
                                                    "pcca_crispness",
                                                    "vamp2",
                                                    "its",
                                                    "mle_converged",
                                                    "cluster_centers",
                                                    "min_segment",
                                                    "note",
                                                    "lag_guard_ok",
                                                    "criteria_met",
                                                    "criteria",
                                                    "streak",
                                                    "converged",
                                                    "reason"};

}  // namespace

std::span<const std::string_view> msm_build_record_keys() { return kKeys; }

void check_msm_build_record(const nlohmann::json& record, const std::string& where) {
  if (!record.is_object()) {
    throw core::CorruptionError(where + ": the MSM build record is not a JSON object");
  }
  const auto version = record.find("record_version");
  if (version == record.end() || !version->is_number_integer() ||
      version->get<int>() != kMsmBuildRecordVersion) {
    throw core::CorruptionError(fmt::format(
        "{}: MSM build record version {} (this Trails reads version {}); the run was written by "
        "another Trails version",
        where, version == record.end() ? std::string("missing") : version->dump(),
        kMsmBuildRecordVersion));
  }
  for (const auto key : kKeys) {
    if (!record.contains(key)) {
      throw core::CorruptionError(
          fmt::format("{}: the MSM build record has no key '{}'", where, key));
    }
  }
}

}  // namespace trails::msm
