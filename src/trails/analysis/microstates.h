// Microstate assignment for the in-loop MSM: a deterministic k-means (k-means++ seeding, Lloyd
// iterations, optional warm start) and regular-space clustering, plus nearest-centre assignment.
// Pure numerics on row-major point arrays (n x d); randomness only from the caller's Rng.
// Distinct from the general clustering API (clustering.h) of the analysis module: this file is
// the small, fixed subset the campaign loop needs, with one exact-tie rule everywhere (the lowest
// centre index wins) so that assigning a frame now or again on resume gives the same label.
// Cost: k-means O(n k d) per iteration; regular space O(n k d); assignment O(n k d).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "trails/core/rng.h"

namespace trails::analysis {

struct MicrostateCentres {
  int k = 0;
  int dim = 0;
  std::vector<double> centres;  // k x dim, row-major
};

// k-means on n = points.size()/dim points. k <= n. `warm` (same k and dim) replaces the
// k-means++ seeding. Stops after max_iter Lloyd updates or when no label changes. An empty
// cluster is re-seeded with the point farthest from its centre (deterministic).
MicrostateCentres kmeans_centres(std::span<const double> points, int dim, int k, int max_iter,
                                 core::Rng& rng, const MicrostateCentres* warm = nullptr);

// Regular space (Prinz et al. 2011): scan points in order, add a point as a new centre when it is
// farther than dmin from every centre, up to max_centres.
MicrostateCentres regular_space_centres(std::span<const double> points, int dim, double dmin,
                                        int max_centres);

// Label of each point: index of the nearest centre (squared Euclidean; ties: lowest index).
void assign_nearest(const MicrostateCentres& c, std::span<const double> points,
                    std::vector<int>& labels);

}  // namespace trails::analysis
