// Axis labels of a run's CVs for pictures: the name and the unit of each CV column, and the
// factor that turns stored values into plotted ones (raw angles are stored in radians and shown
// in degrees). From the run's stored configuration and engine record only.
#pragma once

#include <string>
#include <vector>

#include "trails/store/run_store.h"

namespace trails::report {

struct CvAxis {
  std::string label;   // "phi (degrees)", "d12 (nm)", "Rg (Å)", "x", "cv_0"
  double scale = 1.0;  // plotted value = stored value × scale
  bool angle = false;  // a raw angle: plotted in degrees over [-180, 180]
};

// One axis per CV column (d columns). Molecular runs: a `cvs:` block with one column per entry
// names each axis after its CV (angles in degrees, lengths in nm or Å as configured, contacts
// and q without unit); Trails-MD's fallback is "Rg (Å)", "RMSD (Å)"; a project_file run's CVs
// are the module's own ("cv_i (extract_cvs)"). Built-in runs: "x", "y" (reduced length units).
std::vector<CvAxis> cv_axes(const store::RunMeta& meta, int d);

}  // namespace trails::report
