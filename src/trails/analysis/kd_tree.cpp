// KdTree over nanoflann's KDTreeSingleIndexAdaptor with a row-major span as its dataset.
#include "trails/analysis/kd_tree.h"

#include <algorithm>
#include <string>

#include <nanoflann.hpp>

#include "trails/core/error.h"

namespace trails::analysis {
namespace {

// nanoflann's dataset adaptor over a row-major n x d span.
struct SpanCloud {
  std::span<const double> data;
  std::size_t dim;
  std::size_t kdtree_get_point_count() const { return data.size() / dim; }
  double kdtree_get_pt(std::size_t idx, std::size_t k) const { return data[idx * dim + k]; }
  template <class Box>
  bool kdtree_get_bbox(Box& /*unused*/) const {
    return false;  // let nanoflann compute the bounding box
  }
};

using Tree = nanoflann::KDTreeSingleIndexAdaptor<nanoflann::L2_Simple_Adaptor<double, SpanCloud>,
                                                 SpanCloud, -1, std::size_t>;

constexpr std::size_t kLeafSize = 16;  // nanoflann's suggested range for low dimensions

}  // namespace

struct KdTree::Impl {
  SpanCloud cloud;
  Tree tree;
  Impl(std::span<const double> points, std::size_t dim)
      : cloud{points, dim},
        tree(static_cast<int>(dim), cloud, nanoflann::KDTreeSingleIndexAdaptorParams(kLeafSize)) {}
};

KdTree::KdTree(std::span<const double> points, int dim) {
  if (dim < 1 || points.size() % static_cast<std::size_t>(dim) != 0) {
    throw core::InputError("KdTree: " + std::to_string(points.size()) +
                           " values are not a whole number of points of dimension " +
                           std::to_string(dim));
  }
  impl_ = std::make_unique<Impl>(points, static_cast<std::size_t>(dim));
}

KdTree::~KdTree() = default;

std::int64_t KdTree::size() const {
  return static_cast<std::int64_t>(impl_->cloud.kdtree_get_point_count());
}

int KdTree::dim() const { return static_cast<int>(impl_->cloud.dim); }

std::vector<KdTree::Neighbour> KdTree::nearest(std::span<const double> query, int k) const {
  TRAILS_CHECK(query.size() == impl_->cloud.dim, "KdTree: query of the wrong dimension");
  TRAILS_CHECK(k >= 0, "KdTree: negative neighbour count");
  const auto want =
      std::min<std::size_t>(static_cast<std::size_t>(k), impl_->cloud.kdtree_get_point_count());
  if (want == 0) return {};
  // nanoflann keeps the first of equally distant candidates at the k-th place; ask for one more
  // and cut after sorting only when the extra one ties, so ties go to the lowest index.
  std::size_t ask = want;
  std::vector<std::size_t> idx;
  std::vector<double> d2;
  std::vector<Neighbour> out;
  for (;;) {
    ask = std::min(ask + 1, impl_->cloud.kdtree_get_point_count());
    idx.resize(ask);
    d2.resize(ask);
    const std::size_t got = impl_->tree.knnSearch(query.data(), ask, idx.data(), d2.data());
    out.clear();
    for (std::size_t i = 0; i < got; ++i) {
      out.push_back({static_cast<std::int64_t>(idx[i]), d2[i]});
    }
    std::sort(out.begin(), out.end(), [](const Neighbour& a, const Neighbour& b) {
      return a.dist2 < b.dist2 || (a.dist2 == b.dist2 && a.index < b.index);
    });
    // The answer is settled when the last returned point is farther than the k-th (or all
    // points were returned): every point tied with the k-th is then among those returned.
    if (got < ask || got == impl_->cloud.kdtree_get_point_count() ||
        out[got - 1].dist2 > out[want - 1].dist2) {
      break;
    }
    ask = std::min(ask * 2, impl_->cloud.kdtree_get_point_count()) - 1;
  }
  out.resize(want);
  return out;
}

}  // namespace trails::analysis
