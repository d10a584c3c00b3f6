// KdTree: exact k-nearest-neighbour queries (Euclidean) over n points in d dimensions, through
// nanoflann (a well-kept library; docs/analysis.md). Pure numerics: no I/O, no logging.
// The tree keeps a view of the points: the data must outlive it and stay unchanged. Building
// costs O(n log n); a query about O(log n + k) for small d. Results are sorted by distance, ties
// by point index, so they depend only on the point set, never on the tree's internal order.
// Queries are const and may run concurrently. Throws core::InputError for bad sizes.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace trails::analysis {

class KdTree {
 public:
  // points: n x dim, row-major (n = points.size() / dim).
  KdTree(std::span<const double> points, int dim);
  ~KdTree();
  KdTree(const KdTree&) = delete;
  KdTree& operator=(const KdTree&) = delete;

  std::int64_t size() const;
  int dim() const;

  struct Neighbour {
    std::int64_t index;
    double dist2;  // squared Euclidean distance
  };
  // The min(k, size()) points nearest to `query` (dim values), ascending (dist2, index).
  std::vector<Neighbour> nearest(std::span<const double> query, int k) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trails::analysis
