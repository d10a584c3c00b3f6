#include "trails/report/common/msm_builds.h"

#include <string>

namespace trails::report {

std::vector<CheckedMsmBuild> checked_msm_builds(const store::RunStore& store) {
  std::vector<CheckedMsmBuild> out;
  for (const auto& b : store.msm_builds()) {
    out.push_back({b.iteration, b.build_s,
                   msm::parse_msm_build_record(b.model, "ledger.sqlite, MSM build of iteration " +
                                                            std::to_string(b.iteration))});
  }
  return out;
}

}  // namespace trails::report
