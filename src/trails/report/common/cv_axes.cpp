#include "trails/report/common/cv_axes.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>

#include <fmt/format.h>

namespace trails::report {
using json = nlohmann::json;

namespace {

constexpr std::string_view kAngularKinds[] = {"angle", "dihedral", "phi", "psi"};
constexpr std::string_view kLengthKinds[] = {"distance", "rmsd", "rg"};

bool one_of(std::string_view kind, std::span<const std::string_view> kinds) {
  for (const auto k : kinds) {
    if (k == kind) return true;
  }
  return false;
}

// A length CV's unit key ("nm" default; "angstrom" or "A" for Å; docs/cvs.md).
std::string length_unit(const json& entry) {
  const auto u = entry.value("unit", std::string("nm"));
  return u == "angstrom" || u == "A" ? "Å" : "nm";
}

// Axis `index` of a `cvs:` list; nullopt when a column-count-dependent kind (phi_psi,
// distances, fitted_coords: their width depends on the topology) comes first.
std::optional<CvAxis> from_cvs(const json& cvs, int index) {
  int column = 0;
  for (std::size_t e = 0; e < cvs.size(); ++e) {
    const json& entry = cvs[e];
    if (!entry.is_object()) return std::nullopt;
    const auto kind = entry.value("kind", std::string());
    const auto name = entry.value("name", fmt::format("cv_{}", column));
    const bool angular = one_of(kind, kAngularKinds);
    const bool sincos = angular && entry.value("encoding", std::string("raw")) == "sincos";
    CvAxis axis;
    if (angular) {
      axis.unit = sincos ? "dimensionless" : "rad";
    } else if (one_of(kind, kLengthKinds)) {
      axis.unit = length_unit(entry);
    } else if (kind == "contacts") {
      axis.unit = "count";
    } else if (kind == "q") {
      axis.unit = "fraction of native contacts";
    } else {
      return std::nullopt;
    }
    const int width = sincos ? 2 : 1;
    if (index < column + width) {
      axis.name = sincos ? name + (index == column ? ":sin" : ":cos") : name;
      return axis;
    }
    column += width;
  }
  return std::nullopt;
}

// The axis as the configuration describes it (name and unit); cv_axis() then names it as the
// run recorded its columns.
CvAxis described_axis(const json& config, const json& engine_system, int index, int dim) {
  const auto stable = fmt::format("cv_{}", index);
  const auto space = config.value("space_mode", std::string("fixed"));
  if (space == "tica") return {fmt::format("TIC {}", index + 1), "dimensionless"};
  if (space == "pca") return {fmt::format("PC {}", index + 1), "projection of the features"};
  if (space == "tvae" || space == "vampnet" || space == "spib" || space == "deep-tica") {
    std::string prefix = space;  // the recorded names: tvae_0, deep_tica_0, ...
    std::replace(prefix.begin(), prefix.end(), '-', '_');
    return {fmt::format("{}_{}", prefix, index), "dimensionless"};
  }
  const bool molecular = engine_system.value("molecular", false);
  if (!molecular) {
    // The built-in engine's CVs are its particle's coordinates, in its reduced units.
    static constexpr const char* kCoordinates[] = {"x", "y", "z"};
    const std::string name = index < 3 ? kCoordinates[index] : stable;
    const auto unit = engine_system.value("length_unit", std::string("reduced"));
    return {name, unit == "reduced" ? "reduced units" : unit};
  }
  const auto& system = config.value("system", json::object());
  if (system.contains("project_file") && system.at("project_file").is_string()) {
    // extract_cvs returns bare columns: the file and the column are all that is recorded.
    const auto file = std::filesystem::path(system.at("project_file").get<std::string>());
    return {fmt::format("{} column {}", file.filename().string(), index), "unit not stated"};
  }
  const auto& cvs = config.value("cvs", json());
  if (cvs.is_array()) {
    if (auto axis = from_cvs(cvs, index)) return *axis;
    return {stable, "unit not recorded"};
  }
  // No cvs: Trails-MD's fallback [Rg, RMSD] of the protein, in Å (cvs::trails_md_fallback_cvs).
  if (dim == 2) return {index == 0 ? "Rg" : "RMSD", "Å"};
  return {stable, "unit not recorded"};
}

}  // namespace

std::string CvAxis::label() const { return name + " (" + unit + ")"; }

CvAxis CvAxis::in_degrees() const {
  if (!is_radians()) return *this;
  return {name, "degrees", scale * 180.0 / M_PI};
}

CvAxis cv_axis(const json& config, const json& engine_system, int index, int dim) {
  CvAxis axis = described_axis(config, engine_system, index, dim);
  // One naming rule: a column's recorded name (what `trails export --cv-names` writes) wins.
  const auto& recorded = engine_system.value("cv_names", json());
  if (recorded.is_array() && static_cast<int>(recorded.size()) == dim &&
      recorded[static_cast<std::size_t>(index)].is_string()) {
    axis.name = recorded[static_cast<std::size_t>(index)].get<std::string>();
  }
  // And its recorded unit (a project_file's CV_UNITS) wins over the configuration's guess.
  const auto& units = engine_system.value("cv_units", json());
  if (units.is_array() && static_cast<int>(units.size()) == dim &&
      units[static_cast<std::size_t>(index)].is_string()) {
    axis.unit = units[static_cast<std::size_t>(index)].get<std::string>();
  }
  return axis;
}

std::string cv_axis_label(const json& config, const json& engine_system, int index, int dim) {
  return cv_axis(config, engine_system, index, dim).label();
}

std::vector<CvAxis> cv_axes(const store::RunMeta& meta, int dim) {
  std::vector<CvAxis> axes;
  for (int i = 0; i < dim; ++i) {
    const CvAxis axis = cv_axis(meta.config, meta.engine_system, i, dim);
    axes.push_back(axis.is_radians() ? axis.in_degrees() : axis);
  }
  return axes;
}

}  // namespace trails::report
