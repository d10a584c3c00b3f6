// LofIndex: the local outlier factor of every pool frame, kept up to date as the pool changes
// (docs/spawning.md, "LOF spawner"; docs/performance.md, "Spawner cost"). The scores are bitwise
// those of analysis::local_outlier_factor over the pool [first, history.frames()) with
// k = min(neighbors, pool size − 1): each frame's neighbour list is, as there, the k smallest
// (squared distance, global index) pairs over the other pool frames, and k-distance, lrd and LOF
// are computed from the lists with the same operations in the same order.
//
// What an update costs (the pool grew by m frames, and with history_window lost its front):
//   - the new frames' neighbours: one k-NN query each over the pool, through analysis::KdTree
//     (nanoflann) trees over consecutive index ranges, merged the logarithmic way (a range's tree
//     is rebuilt when the one after it grows to half its size), so no tree is rebuilt over the
//     whole pool per iteration;
//   - the old frames a new one displaces from a neighbour list (d(p, q) < k-distance(p)): found
//     by chunks (each tree's frames cut by median splits into compact groups of ≤ 128), a chunk
//     skipped when its bounding ball is farther from every new frame than its largest
//     k-distance; then queries of the new frames' tree;
//   - lrd of the frames whose list changed or with a neighbour whose k-distance changed, LOF of
//     those with a changed lrd or a neighbour with one: the same chunk test finds them;
//   - frames that lost a neighbour to the window: one full query each.
// A change of k (a pool smaller than neighbors + 1), another history object, a history whose
// newest already-seen frame no longer holds the same point (replayed in place), or reset() rebuilds
// everything, which is what a resumed run does at its first spawn: the scores depend on the pool
// only, so a resume gives the uninterrupted run's bits without any of this in a checkpoint.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "trails/analysis/kd_tree.h"
#include "trails/features/frame_history.h"

namespace trails::spawners {

class LofIndex {
 public:
  explicit LofIndex(int neighbors);
  ~LofIndex();
  LofIndex(LofIndex&&) noexcept;
  LofIndex& operator=(LofIndex&&) noexcept;

  // LOF of each pool frame [first, history.frames()), in order; the pool needs at least 2 frames.
  // `history` only ever grows between calls (and `first` never moves back); anything else
  // rebuilds.
  const std::vector<double>& update(const features::FrameHistory& history, std::int64_t first);
  void reset();

 private:
  struct Part;   // a consecutive index range of the pool and its k-d tree
  struct Chunk;  // up to kChunk frames close together: bounding ball, largest k-distance
  std::int64_t row(std::int64_t g) const { return g - first_; }
  std::span<const double> at(std::int64_t g) const;
  std::vector<analysis::KdTree::Neighbour> query(std::int64_t g) const;
  void drop_front(std::int64_t first, std::vector<char>& requery);
  void append(const features::FrameHistory& history);
  void merge_parts();
  std::unique_ptr<Part> make_part(std::int64_t first, std::vector<double> pts);
  void split(Part& part, std::vector<std::int64_t>& idx, std::size_t lo, std::size_t hi) const;
  void refresh_chunks(const std::vector<char>& changed);
  // Calls fn(g) for every old frame g < old_end (chunk by chunk) whose chunk may hold a frame
  // within its k-distance of one of `sources` (global indices).
  template <class Fn>
  void near_sources(const std::vector<std::int64_t>& sources, std::int64_t old_end, Fn fn) const;
  void insert_new(std::int64_t old_end, std::vector<char>& changed);
  void rescore(std::int64_t old_end, const std::vector<char>& changed,
               const std::vector<double>& old_kd2);

  int neighbors_;
  int k_ = 0;
  std::size_t dim_ = 0;
  const features::FrameHistory* seen_ = nullptr;
  std::int64_t first_ = 0;  // pool of the last update: [first_, end_)
  std::int64_t end_ = 0;
  std::vector<double> pts_;        // row(g) * dim_: the pool's points
  std::vector<std::int64_t> nbr_;  // row(g) * k_ + m: neighbour m of g, ascending (d2, index)
  std::vector<double> d2_;         // its squared distance
  std::vector<double> lrd_, lof_;  // per row
  std::vector<std::unique_ptr<Part>> parts_;
  std::vector<Chunk*> chunk_of_;  // per row: the chunk of its part that holds it
};

}  // namespace trails::spawners
