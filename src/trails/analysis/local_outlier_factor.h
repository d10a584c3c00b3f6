// Local outlier factor (Breunig, Kriegel, Ng & Sander 2000), computed as scikit-learn's
// LocalOutlierFactor does (the score Trails-MD's LOF spawner uses, compat:lof-spawner): for each
// point its k nearest other points N_k(i) (ties by index); k-distance(j) = distance to j's k-th
// neighbour; reach(i, j) = max(k-distance(j), d(i, j)); lrd(i) = 1 / (mean_{j in N_k(i)}
// reach(i, j) + 1e-10); LOF(i) = mean_{j in N_k(i)} lrd(j) / lrd(i). About 1 inside a cluster,
// larger for outliers. Pure numerics; neighbour queries through KdTree (nanoflann).
// Cost: O(n log n) to build plus n queries of k + 1 neighbours (on core::default_pool();
// results do not depend on the thread count). Throws core::InputError unless
// 1 <= k < n.
#pragma once

#include <span>
#include <vector>

namespace trails::analysis {

// points: n x dim, row-major. Returns LOF(i) for every point, in point order.
std::vector<double> local_outlier_factor(std::span<const double> points, int dim, int k);

}  // namespace trails::analysis
