// Free-energy surfaces F = -kT ln p of points on a regular grid (docs/analysis.md, "Free-energy
// surfaces"): p from histogram counts or from per-point weights (RiteWeight's, or an MSM's
// stationary distribution mapped onto its microstates' frames). Pure: no files; the energy
// scale, the pictures and the run's frames are the reports' (report/analyze/free_energy.h).
// Errors: InputError naming the sizes that do not match.
#pragma once

#include <span>
#include <vector>

namespace trails::analysis {

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

}  // namespace trails::analysis
