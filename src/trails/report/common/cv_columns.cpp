#include "trails/report/common/cv_columns.h"

#include <fmt/format.h>

namespace trails::report {

std::vector<std::string> stable_cv_names(int cv_dim) {
  std::vector<std::string> names;
  for (int k = 0; k < cv_dim; ++k) names.push_back(fmt::format("cv_{}", k));
  return names;
}

std::vector<std::string> recorded_cv_names(const store::RunMeta& meta, int cv_dim) {
  const auto& recorded = meta.engine_system.value("cv_names", nlohmann::json());
  if (!recorded.is_array() || static_cast<int>(recorded.size()) != cv_dim) {
    return stable_cv_names(cv_dim);
  }
  std::vector<std::string> names;
  for (const auto& n : recorded) {
    if (!n.is_string()) return stable_cv_names(cv_dim);
    names.push_back(n.get<std::string>());
  }
  return names;
}

}  // namespace trails::report
