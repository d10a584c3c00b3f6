// `trails plot`: pictures of what a campaign sampled, drawn with gnuplot (pngcairo).
//   coverage.png  – CV points coloured by iteration, over the potential's contours for built-in
//                   2-D potentials (1-D: position against iteration over V(x))
//   occupancy.png – occupied bins and grid resolution per iteration
//   fes.png       – free energy F = -kT ln p of the frames on a 60-bin grid (free_energy.h): p
//                   from histogram counts, or from `trails reweight` frame weights (--weights)
//   fes_msm.png   – the same with p from the latest MSM build's stationary distribution, mapped
//                   onto its microstates' frames (runs with a model that stores its centres)
// Reads the run store only; writes just the PNGs into out_dir (temporary data goes to /tmp).
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

namespace trails::report {

struct PlotOptions {
  std::optional<std::filesystem::path> weights;  // a `trails reweight` file of this run
  std::optional<double> temperature_k;           // F in kJ/mol at this T (free_energy.h)
};

// Returns the paths written. Throws InputError when gnuplot is missing or fails, or when the
// weights file does not belong to the run (nothing is written then).
std::vector<std::filesystem::path> plot_run(const std::filesystem::path& run_dir,
                                            const std::filesystem::path& out_dir,
                                            const PlotOptions& options = {});

}  // namespace trails::report
