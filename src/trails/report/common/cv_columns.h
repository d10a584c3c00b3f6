// The names of a run's stored CV columns, as the run recorded them when it was created
// (meta engine_system.cv_names: docs/analysis.md#exports). Runs made before Trails recorded them,
// or whose record does not match the stored dimension, get the stable names cv_0, cv_1, ….
#pragma once

#include <string>
#include <vector>

#include "trails/store/run_store.h"

namespace trails::report {

std::vector<std::string> recorded_cv_names(const store::RunMeta& meta, int cv_dim);
std::vector<std::string> stable_cv_names(int cv_dim);

}  // namespace trails::report
