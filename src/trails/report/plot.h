// `trails plot`: pictures of what a campaign sampled, drawn with gnuplot (pngcairo).
//   coverage.png  – CV points coloured by iteration, over the potential's contours for built-in
//                   2-D potentials (1-D: position against iteration over V(x))
//   occupancy.png – occupied bins and grid resolution per iteration
// Reads the run store only; writes just the PNGs into out_dir (temporary data goes to /tmp).
#pragma once

#include <filesystem>
#include <vector>

namespace trails::report {

// Returns the paths written. Throws InputError when gnuplot is missing or fails.
std::vector<std::filesystem::path> plot_run(const std::filesystem::path& run_dir,
                                            const std::filesystem::path& out_dir);

}  // namespace trails::report
