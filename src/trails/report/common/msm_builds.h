// The in-loop MSM builds of a run, each parsed into the one typed record of
// msm/msm_build_record.h before a report reads it (a missing or renamed key, or a value of
// another type, is an error naming the build and the key, not a NaN in a table).
#pragma once

#include <cstdint>
#include <vector>

#include "trails/msm/msm_build_record.h"
#include "trails/store/run_store.h"

namespace trails::report {

struct CheckedMsmBuild {
  std::int64_t iteration = 0;  // the ledger row's (= record.iteration for the writer's rows)
  double build_s = 0.0;        // wall time of the build (not part of the payload)
  msm::MsmBuildRecord record;
};

// Every build of the run in iteration order; throws core::CorruptionError for a bad payload.
std::vector<CheckedMsmBuild> checked_msm_builds(const store::RunStore& store);

}  // namespace trails::report
