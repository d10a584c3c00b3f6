// Two-dimensional Voronoi cells of a set of centres in a rectangular box, for Trails-MD's
// Voronoi spawner (compat:voronoi-spawner): nearest-centre assignment and exact cell areas.
// Non-periodic: each cell is clipped to the box (the centres must lie in it). Periodic: the box is
// a torus; distances are minimum-image and a cell's area is its area on the torus, so the areas
// always sum to the box area (docs/spawning.md, fix:periodic-voronoi-areas).
// Pure numerics. Neighbour queries through KdTree (nanoflann); cost about O(k log k) for the
// areas of k centres and one pruned nearest-centre search per point (analysis::assign).
#pragma once

#include <array>
#include <span>
#include <vector>

namespace trails::analysis {

struct VoronoiBox {
  std::array<double, 2> lo{};
  std::array<double, 2> hi{};  // hi > lo on both axes
  bool periodic = false;
};

// p wrapped into [lo, hi) on both axes (periodic boxes only; others unchanged).
void wrap_into_box(const VoronoiBox& box, std::span<double> p);

// Squared Euclidean distance between two 2-D points, minimum image in a periodic box.
double box_dist2(const VoronoiBox& box, const double* a, const double* b);

// Index of the nearest centre of every point (k x 2 and n x 2, row-major); ties go to the lowest
// centre index (non-periodic) or the lowest (image, centre) pair (periodic). Periodic points must
// be wrapped into the box. Throws core::InputError for bad sizes.
std::vector<int> voronoi_assign(std::span<const double> centres, std::span<const double> points,
                                const VoronoiBox& box);

// Area of each centre's Voronoi cell (k x 2, row-major) within the box. Of coinciding centres the
// lowest index owns the cell and the others get 0.
std::vector<double> voronoi_cell_areas(std::span<const double> centres, const VoronoiBox& box);

}  // namespace trails::analysis
