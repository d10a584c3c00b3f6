#include "trails/report/cv_axes.h"

#include <cmath>

#include <fmt/format.h>

namespace trails::report {
namespace {

CvAxis axis_of(const nlohmann::json& cv, int i) {
  const std::string name = cv.value("name", fmt::format("cv_{}", i));
  const std::string kind = cv.value("kind", "");
  const bool raw = cv.value("encoding", "raw") == "raw";
  if (kind == "phi" || kind == "psi" || kind == "dihedral" || kind == "angle") {
    if (raw) return {name + " (degrees)", 180.0 / M_PI, true};
    return {name, 1.0, false};
  }
  if (kind == "distance" || kind == "rmsd" || kind == "rg") {
    const std::string unit = cv.value("unit", "nm");
    return {name + (unit == "angstrom" || unit == "A" ? " (Å)" : " (nm)"), 1.0, false};
  }
  return {name, 1.0, false};  // contacts, q: dimensionless
}

}  // namespace

std::vector<CvAxis> cv_axes(const store::RunMeta& meta, int d) {
  std::vector<CvAxis> axes;
  for (int i = 0; i < d; ++i) axes.push_back({fmt::format("cv_{}", i), 1.0, false});
  if (!meta.engine_system.value("molecular", false)) {
    static const char* const kBuiltin[] = {"x", "y", "z"};
    for (int i = 0; i < d && i < 3; ++i) axes[static_cast<std::size_t>(i)].label = kBuiltin[i];
    return axes;
  }
  const auto& cfg = meta.config;
  const auto& cvs = cfg.value("cvs", nlohmann::json());
  const auto& system = cfg.value("system", nlohmann::json::object());
  const bool project_file =
      system.is_object() && system.contains("project_file") && !system.at("project_file").is_null();
  if (cvs.is_array() && static_cast<int>(cvs.size()) == d) {
    for (int i = 0; i < d; ++i) axes[static_cast<std::size_t>(i)] = axis_of(cvs[i], i);
  } else if (project_file) {
    for (int i = 0; i < d; ++i) {
      axes[static_cast<std::size_t>(i)].label = fmt::format("cv_{} (extract_cvs)", i);
    }
  } else if (!cvs.is_array() && d == 2) {
    axes = {{"Rg (Å)", 1.0, false}, {"RMSD (Å)", 1.0, false}};
  }
  return axes;
}

}  // namespace trails::report
