#include "trails/analysis/lineage_path.h"

#include <algorithm>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::analysis {

std::vector<core::FrameKey> lineage_of(const core::FrameKey& from, const ParentOf& parent_of) {
  std::vector<core::FrameKey> chain{from};
  std::set<core::FrameKey> seen{from};
  for (auto parent = parent_of(from); parent; parent = parent_of(*parent)) {
    if (!seen.insert(*parent).second) {
      throw core::InputError(fmt::format(
          "the lineage of frame {} loops: frame {} is its own ancestor (after {} parent links); "
          "the run's ledger is damaged",
          from.to_string(), parent->to_string(), chain.size()));
    }
    chain.push_back(*parent);
  }
  return chain;
}

LineagePath connect_lineage(const core::FrameKey& start, const core::FrameKey& end,
                            const ParentOf& parent_of) {
  const auto up = lineage_of(start, parent_of);
  const auto down = lineage_of(end, parent_of);
  const std::set<core::FrameKey> in_up(up.begin(), up.end());
  const auto meet = std::find_if(down.begin(), down.end(),
                                 [&](const core::FrameKey& k) { return in_up.contains(k); });
  if (meet == down.end()) {
    throw core::InputError(fmt::format(
        "frames {} and {} do not share a recorded lineage (their roots are {} and {}: walkers "
        "that started apart in the first iteration); choose end points reached from one "
        "start, or see `trails export --lineage`",
        start.to_string(), end.to_string(), up.back().to_string(), down.back().to_string()));
  }
  LineagePath path{start, end, *meet, {}};
  for (const auto& k : up) {
    path.frames.push_back(k);
    if (k == *meet) break;
  }
  // down[0 .. meet) reversed: from the LCA's child forward to the end frame.
  path.frames.insert(path.frames.end(), std::make_reverse_iterator(meet), down.rend());
  return path;
}

std::size_t nearest_point(std::span<const double> points, std::span<const double> target) {
  const std::size_t dim = target.size();
  TRAILS_CHECK(dim > 0 && points.size() >= dim && points.size() % dim == 0,
               "nearest_point needs at least one point of the target's dimension");
  std::size_t best = 0;
  double best_d2 = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < points.size() / dim; ++i) {
    double d2 = 0.0;
    for (std::size_t k = 0; k < dim; ++k) {
      const double diff = points[i * dim + k] - target[k];
      d2 += diff * diff;
    }
    if (d2 < best_d2) {
      best_d2 = d2;
      best = i;
    }
  }
  return best;
}

}  // namespace trails::analysis
