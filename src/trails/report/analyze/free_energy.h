// Free-energy surfaces F = -kT ln p of a run's frames on a regular CV grid (docs/analysis.md,
// "Free-energy surfaces"): the energy scale of a run and the fes.png picture over the surface
// of analysis/free_energy.h (p from histogram counts, from frame weights such as RiteWeight's,
// or from an MSM's stationary distribution mapped onto its microstates' frames) (a 1-D profile or a
// 2-D map, over the potential for built-in runs). Used by `trails plot` and `trails analyze`.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "trails/analysis/free_energy.h"
#include "trails/core/output_target.h"
#include "trails/engines/builtin/potential.h"
#include "trails/report/common/cv_axes.h"
#include "trails/store/run_store.h"

namespace trails::report {

// The energy unit and temperature of a run's free energies: the one place that decides them for
// every picture and number of `trails plot`, `trails analyze` and `trails report`. Given a
// temperature (--temperature): kJ/mol at it. Otherwise a molecular run's engine.temperature
// (kJ/mol), and a built-in run's engine.kT in the potential's reduced units, so that F is
// directly comparable with V.
struct EnergyScale {
  double kT = 0.0;
  std::string unit;                     // "kJ/mol" | "reduced units"
  std::string statement;                // "T = 300 K" | "kT = 0.5"
  std::optional<double> temperature_k;  // K, none in reduced units
  // "kT 2.494 kJ/mol at 300 K" | "kT = 0.5 (reduced units)", for text summaries.
  std::string kT_text() const;
  // "kJ/mol at T = 300 K" | "reduced units at kT = 0.5", for captions.
  std::string words() const { return unit + " at " + statement; }
};
EnergyScale energy_scale(const store::RunMeta& meta, std::optional<double> temperature_k);

// What one fes.png shows.
struct FreeEnergyPicture {
  std::vector<double> points;  // n × point_dim, stored CV values
  int point_dim = 0;
  std::vector<double> weights;  // per frame; empty: histogram counts
  std::string source;           // how p was obtained, for the title
  EnergyScale scale;
  std::vector<CvAxis> axes;                                // point_dim of them
  const engines::builtin::Potential* potential = nullptr;  // contours / V(x), built-in runs
  double potential_span = 0.0;  // energy range contoured above the minimum
  int bins = analysis::kFreeEnergyBins;
};

// Writes the picture's data files into `dir` and returns the gnuplot script that draws `png`.
// The surface (1-D or over the first two CVs) is returned through `fes` when given.
std::string free_energy_script(const FreeEnergyPicture& picture, const std::filesystem::path& dir,
                               const std::filesystem::path& png,
                               analysis::FreeEnergySurface* fes = nullptr);

// Draws the picture in a temporary directory and replaces `target` with it only once it is a
// complete PNG. InputError when gnuplot fails (the target is then left as it was).
void write_free_energy_png(const FreeEnergyPicture& picture, const core::OutputTarget& target,
                           analysis::FreeEnergySurface* fes = nullptr);

}  // namespace trails::report
