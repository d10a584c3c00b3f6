// The lineage-connected path between two stored frames (docs/analysis.md, "trails path"): each
// frame's lineage is the chain of parent links back to a root (a frame without a recorded
// parent); the lowest common ancestor (LCA) is the first frame of the end frame's lineage that
// is also in the start frame's lineage; the path is start → back to the LCA → forward to end.
// Pure: the caller says how to look parents up. Errors are InputError (exit 2): no common
// ancestor, or a lineage that loops (a damaged ledger).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "trails/core/frame_key.h"

namespace trails::analysis {

// The recorded parent of a frame; nullopt for a root (or a parent that is not stored).
using ParentOf = std::function<std::optional<core::FrameKey>(const core::FrameKey&)>;

// `from`, its parent, its grandparent, … up to and including the root. A frame met twice is
// an InputError naming the loop.
std::vector<core::FrameKey> lineage_of(const core::FrameKey& from, const ParentOf& parent_of);

struct LineagePath {
  core::FrameKey start;
  core::FrameKey end;
  core::FrameKey lca;
  std::vector<core::FrameKey> frames;  // start … lca … end, each next to its parent or child
};

LineagePath connect_lineage(const core::FrameKey& start, const core::FrameKey& end,
                            const ParentOf& parent_of);

// Index of the row of `points` (n × dim, row-major) nearest to `target` (Euclidean; ties go
// to the lowest index). Requires target.size() == dim and at least one row.
std::size_t nearest_point(std::span<const double> points, std::span<const double> target);

}  // namespace trails::analysis
