// The in-loop MSM builds of a run, each checked against the one record layout of
// msm/msm_build_record.h before a report reads it (a missing or renamed key is an error naming
// the build, not a NaN in a table).
#pragma once

#include <vector>

#include "trails/store/run_store.h"

namespace trails::report {

std::vector<store::MsmBuildRow> checked_msm_builds(const store::RunStore& store);

}  // namespace trails::report
