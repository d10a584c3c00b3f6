// Free-energy surfaces F = -kT ln p of a run's frames on a regular CV grid (docs/analysis.md,
// "Free-energy surfaces"): the numerics (p from histogram counts, from frame weights such as
// RiteWeight's, or from an MSM's stationary distribution mapped onto its microstates' frames),
// the energy scale of a run, and the fes.png picture (a 1-D profile or a 2-D map, over the
// potential for built-in runs). Used by `trails plot` and `trails analyze`.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "trails/core/output_target.h"
#include "trails/engines/builtin/potential.h"
#include "trails/report/common/cv_axes.h"
#include "trails/store/run_store.h"

namespace trails::report {

// Boltzmann constant in kJ/(mol K), Trails-MD's value (compat:boltzmann-constant).
inline constexpr double kBoltzmannKjPerMolK = 0.00831446;
inline constexpr int kFreeEnergyBins = 60;  // Trails-MD's plot_free_energy_surface

// Weight of each frame (n × point_dim row-major) so that the frames nearest to active
// microstate i (Euclidean, ties to the lowest centre index) carry pi_i in total: pi_i / n_i.
// Frames nearest to an inactive microstate get 0. centres: k × point_dim row-major.
std::vector<double> microstate_frame_weights(std::span<const double> points, int point_dim,
                                             std::span<const double> centres,
                                             std::span<const int> active_set,
                                             std::span<const double> pi);

// F = -kT ln p over a regular grid of `bins` per axis on the first `dims` (1 or 2) columns,
// numpy's histogram conventions: edges linspace(min, max, bins + 1) per axis (min == max →
// ±0.5), bin = searchsorted(edges, x, right) - 1 with x == max in the last bin. p is the
// weighted density; F is shifted so its minimum is 0; empty bins are NaN.
struct FreeEnergySurface {
  int dims = 0;
  int bins = 0;
  std::vector<std::vector<double>> edges;  // per axis, bins + 1
  std::vector<double> free_energy;         // bins^dims, index i*bins + j (i: cv_0 bin)
  double total_weight = 0.0;
};
FreeEnergySurface free_energy_surface(std::span<const double> points, int point_dim, int dims,
                                      std::span<const double> weights, int bins, double kT);

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
  int bins = kFreeEnergyBins;
};

// Writes the picture's data files into `dir` and returns the gnuplot script that draws `png`.
// The surface (1-D or over the first two CVs) is returned through `fes` when given.
std::string free_energy_script(const FreeEnergyPicture& picture, const std::filesystem::path& dir,
                               const std::filesystem::path& png, FreeEnergySurface* fes = nullptr);

// Draws the picture in a temporary directory and replaces `target` with it only once it is a
// complete PNG. InputError when gnuplot fails (the target is then left as it was).
void write_free_energy_png(const FreeEnergyPicture& picture, const core::OutputTarget& target,
                           FreeEnergySurface* fes = nullptr);

}  // namespace trails::report
