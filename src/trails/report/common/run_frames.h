// Every committed frame of a run as the ledger records it, without its coordinates: key, CV
// point, segment-local time and lineage parent (frame 0 → the spawn frame its walker started
// from, frame f → frame f−1 of the same walker; docs/file-formats.md). Built from
// RunStore::load_iterations(), which reads the ledger only: no shard is opened.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "trails/core/frame_key.h"
#include "trails/store/records.h"

namespace trails::report {

class RunFrames {
 public:
  explicit RunFrames(const std::vector<store::IterationRecord>& records);

  std::size_t size() const { return keys_.size(); }
  int dim() const { return dim_; }
  // Ledger order: iterations ascending, ok walkers in walker order, frames in time order.
  const std::vector<core::FrameKey>& keys() const { return keys_; }
  const std::vector<double>& cvs() const { return cvs_; }  // size() × dim(), row-major
  std::span<const double> cv(std::size_t row) const;
  // (frame + 1) × stride × dt of the frame's own segment, in the engine's time unit.
  double time(std::size_t row) const { return time_[row]; }

  // Frames of the key's segment (its walker in its iteration); 0 for an unknown one.
  std::int64_t segment_length(const core::FrameKey& key) const;
  std::optional<std::size_t> row_of(const core::FrameKey& key) const;
  // The recorded parent when it is a stored frame; nullopt for a root.
  std::optional<core::FrameKey> parent_of(const core::FrameKey& key) const;
  // The parent as recorded, stored or not (an iteration-0 walker has none).
  std::optional<core::FrameKey> recorded_parent(const core::FrameKey& key) const;

 private:
  struct Segment {
    std::size_t first_row = 0;
    std::int64_t n_frames = 0;
    std::optional<core::FrameKey> parent;
  };
  int dim_ = 0;
  std::vector<core::FrameKey> keys_;
  std::vector<double> cvs_;
  std::vector<double> time_;
  std::map<std::pair<std::int64_t, std::int64_t>, Segment> segments_;  // (iteration, walker)
};

}  // namespace trails::report
