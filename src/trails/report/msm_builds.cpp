#include "trails/report/msm_builds.h"

#include <string>

#include "trails/msm/msm_build_record.h"

namespace trails::report {

std::vector<store::MsmBuildRow> checked_msm_builds(const store::RunStore& store) {
  auto builds = store.msm_builds();
  for (const auto& b : builds) {
    msm::parse_msm_build_record(
        b.model, "ledger.sqlite, MSM build of iteration " + std::to_string(b.iteration));
  }
  return builds;
}

}  // namespace trails::report
