// Axis names and units of a run's CV space for every picture that draws CV axes (`trails plot`,
// `trails analyze`), derived from what the run recorded: the stored configuration (`cvs:`,
// space_mode, system.project_file) and the engine's system description (molecular or not).
// docs/report.md ("Axis names and units") lists the rules.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/store/run_store.h"

namespace trails::report {

struct CvAxis {
  std::string name;    // "phi", "x", "TIC 1", "cv_0", ...
  std::string unit;    // "rad", "nm", "Å", "reduced units", "count", ...; never empty
  double scale = 1.0;  // drawn value = stored value × scale
  // "name (unit)"
  std::string label() const;
  // An angle in rad drawn in degrees (scale 180/π); other axes unchanged.
  CvAxis in_degrees() const;
  bool is_radians() const { return unit == "rad"; }
  bool is_degrees() const { return unit == "degrees"; }
};

// Axis `index` (0-based) of the `dim`-dimensional CV space of a run whose stored configuration
// is `config` and whose engine system (RunMeta::engine_system) is `engine_system`.
CvAxis cv_axis(const nlohmann::json& config, const nlohmann::json& engine_system, int index,
               int dim);
// cv_axis(...).label().
std::string cv_axis_label(const nlohmann::json& config, const nlohmann::json& engine_system,
                          int index, int dim);

// Every axis of a `dim`-dimensional run as the free-energy pictures draw it: angles in rad drawn
// in degrees, the others as cv_axis() gives them.
std::vector<CvAxis> cv_axes(const store::RunMeta& meta, int dim);

}  // namespace trails::report
