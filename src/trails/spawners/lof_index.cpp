// LofIndex (lof_index.h). Everything a score depends on is recomputed with the operations of
// analysis::local_outlier_factor (distances by analysis::KdTree, whose squared distance is
// nanoflann's Σ (a − b)² in axis order; lrd and LOF summed over the list in list order), so the
// incremental scores are bitwise the full recomputation's.
#include "trails/spawners/lof_index.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "trails/core/error.h"
#include "trails/core/thread_pool.h"

namespace trails::spawners {
namespace {

constexpr std::size_t kChunk = 128;  // frames per chunk of the neighbourhood tests
constexpr std::size_t kQueryChunk = 1024;
// A chunk is skipped only when it is farther than its largest k-distance by this relative
// margin, so rounding in the bounding-ball arithmetic can never skip a frame that is affected.
constexpr double kSlack = 1e-9;

bool before(const analysis::KdTree::Neighbour& a, const analysis::KdTree::Neighbour& b) {
  return a.dist2 < b.dist2 || (a.dist2 == b.dist2 && a.index < b.index);
}

}  // namespace

struct LofIndex::Chunk {
  std::vector<std::int64_t> members;  // global indices, near each other in CV space
  std::vector<double> centre;
  double radius = 0.0;  // bounding ball of its frames
  double max_kd = 0.0;  // largest k-distance of its frames
};

struct LofIndex::Part {
  std::int64_t first = 0;
  std::vector<double> pts;  // its own copy: the trees keep a view of their points
  std::unique_ptr<analysis::KdTree> tree;
  std::vector<Chunk> chunks;  // its frames, cut into compact groups (make_part)
  Part(std::int64_t f, std::vector<double> p, int dim)
      : first(f), pts(std::move(p)), tree(std::make_unique<analysis::KdTree>(pts, dim)) {}
  std::int64_t size() const { return tree->size(); }
};

LofIndex::LofIndex(int neighbors) : neighbors_(neighbors) {
  TRAILS_CHECK(neighbors_ >= 1, "LofIndex: neighbors >= 1");
}
LofIndex::~LofIndex() = default;
LofIndex::LofIndex(LofIndex&&) noexcept = default;
LofIndex& LofIndex::operator=(LofIndex&&) noexcept = default;

void LofIndex::reset() {
  const int neighbors = neighbors_;
  *this = LofIndex(neighbors);
}

std::span<const double> LofIndex::at(std::int64_t g) const {
  return std::span<const double>(pts_).subspan(static_cast<std::size_t>(row(g)) * dim_, dim_);
}

// The k nearest other pool frames of g: each part's k + 1 nearest (exact, ties by index),
// merged; g itself dropped.
std::vector<analysis::KdTree::Neighbour> LofIndex::query(std::int64_t g) const {
  std::vector<analysis::KdTree::Neighbour> all;
  for (const auto& part : parts_) {
    for (auto n : part->tree->nearest(at(g), k_ + 1)) {
      n.index += part->first;
      if (n.index != g) all.push_back(n);
    }
  }
  std::sort(all.begin(), all.end(), before);
  all.resize(static_cast<std::size_t>(k_));
  return all;
}

void LofIndex::drop_front(std::int64_t first, std::vector<char>& requery) {
  const auto gone = static_cast<std::size_t>(first - first_);
  const auto k = static_cast<std::size_t>(k_);
  pts_.erase(pts_.begin(), pts_.begin() + static_cast<std::ptrdiff_t>(gone * dim_));
  nbr_.erase(nbr_.begin(), nbr_.begin() + static_cast<std::ptrdiff_t>(gone * k));
  d2_.erase(d2_.begin(), d2_.begin() + static_cast<std::ptrdiff_t>(gone * k));
  lrd_.erase(lrd_.begin(), lrd_.begin() + static_cast<std::ptrdiff_t>(gone));
  lof_.erase(lof_.begin(), lof_.begin() + static_cast<std::ptrdiff_t>(gone));
  chunk_of_.erase(chunk_of_.begin(), chunk_of_.begin() + static_cast<std::ptrdiff_t>(gone));
  first_ = first;
  requery.assign(lrd_.size(), 0);
  for (std::size_t r = 0; r < requery.size(); ++r) {
    for (std::size_t m = 0; m < k; ++m) {
      if (nbr_[r * k + m] < first) requery[r] = 1;
    }
  }
  // Parts wholly before `first` go; the one it cuts is rebuilt over what remains of it.
  std::vector<std::unique_ptr<Part>> kept;
  for (auto& part : parts_) {
    const std::int64_t end = part->first + part->size();
    if (end <= first) continue;
    if (part->first < first) {
      const auto cut = static_cast<std::size_t>(first - part->first) * dim_;
      part = make_part(first, std::vector<double>(part->pts.begin() + cut, part->pts.end()));
    }
    kept.push_back(std::move(part));
  }
  parts_ = std::move(kept);
}

void LofIndex::append(const features::FrameHistory& history) {
  const std::int64_t from = end_;
  for (std::size_t b = 0; b < history.iterations(); ++b) {
    const std::int64_t bf = history.block_first(b), bn = history.block_frames(b);
    if (bf + bn <= from) continue;
    const auto skip = static_cast<std::size_t>(std::max<std::int64_t>(0, from - bf)) * dim_;
    const auto p = history.block_points(b).subspan(skip);
    pts_.insert(pts_.end(), p.begin(), p.end());
  }
  end_ = history.frames();
  const auto rows = static_cast<std::size_t>(end_ - first_);
  nbr_.resize(rows * static_cast<std::size_t>(k_));
  d2_.resize(rows * static_cast<std::size_t>(k_));
  lrd_.resize(rows);
  lof_.resize(rows);
  chunk_of_.resize(rows, nullptr);
  if (end_ > from) {
    const auto r0 = static_cast<std::size_t>(row(from)) * dim_;
    parts_.push_back(make_part(
        from, std::vector<double>(pts_.begin() + static_cast<std::ptrdiff_t>(r0), pts_.end())));
    merge_parts();
  }
}

// The logarithmic method: a part is merged with the next when that one reaches half its size,
// so part sizes fall geometrically and each frame is rebuilt into a tree O(log n) times.
void LofIndex::merge_parts() {
  while (parts_.size() >= 2 && 2 * parts_.back()->size() >= parts_[parts_.size() - 2]->size()) {
    auto last = std::move(parts_.back());
    parts_.pop_back();
    auto& prev = parts_.back();
    std::vector<double> pts = std::move(prev->pts);
    pts.insert(pts.end(), last->pts.begin(), last->pts.end());
    prev = make_part(prev->first, std::move(pts));
  }
}

// A part's tree, and its frames cut into chunks of at most kChunk by recursive median splits
// along the widest axis, so a chunk is compact in CV space whatever order the frames came in.
std::unique_ptr<LofIndex::Part> LofIndex::make_part(std::int64_t first, std::vector<double> pts) {
  auto part = std::make_unique<Part>(first, std::move(pts), static_cast<int>(dim_));
  std::vector<std::int64_t> idx(static_cast<std::size_t>(part->size()));
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = first + static_cast<std::int64_t>(i);
  split(*part, idx, 0, idx.size());
  for (auto& ch : part->chunks) {
    for (const auto g : ch.members) chunk_of_[static_cast<std::size_t>(row(g))] = &ch;
  }
  return part;
}

void LofIndex::split(Part& part, std::vector<std::int64_t>& idx, std::size_t lo,
                     std::size_t hi) const {
  std::vector<double> mn(dim_, std::numeric_limits<double>::infinity());
  std::vector<double> mx(dim_, -std::numeric_limits<double>::infinity());
  for (std::size_t i = lo; i < hi; ++i) {
    const auto p = at(idx[i]);
    for (std::size_t d = 0; d < dim_; ++d) {
      mn[d] = std::min(mn[d], p[d]);
      mx[d] = std::max(mx[d], p[d]);
    }
  }
  if (hi - lo <= kChunk) {
    Chunk ch;
    ch.members.assign(idx.begin() + static_cast<std::ptrdiff_t>(lo),
                      idx.begin() + static_cast<std::ptrdiff_t>(hi));
    ch.centre.resize(dim_);
    double r2 = 0.0;
    for (std::size_t d = 0; d < dim_; ++d) {
      ch.centre[d] = 0.5 * (mn[d] + mx[d]);
      r2 += 0.25 * (mx[d] - mn[d]) * (mx[d] - mn[d]);
    }
    ch.radius = std::sqrt(r2);
    // Old frames' k-distances (a new frame's row is still 0 here; refresh_chunks sets it).
    const auto k = static_cast<std::size_t>(k_);
    double kd2 = 0.0;
    for (const auto g : ch.members)
      kd2 = std::max(kd2, d2_[static_cast<std::size_t>(row(g)) * k + k - 1]);
    ch.max_kd = std::sqrt(kd2);
    part.chunks.push_back(std::move(ch));
    return;
  }
  std::size_t axis = 0;
  for (std::size_t d = 1; d < dim_; ++d) {
    if (mx[d] - mn[d] > mx[axis] - mn[axis]) axis = d;
  }
  const std::size_t mid = lo + (hi - lo) / 2;
  std::nth_element(
      idx.begin() + static_cast<std::ptrdiff_t>(lo), idx.begin() + static_cast<std::ptrdiff_t>(mid),
      idx.begin() + static_cast<std::ptrdiff_t>(hi), [&](std::int64_t a, std::int64_t b) {
        const double pa = at(a)[axis], pb = at(b)[axis];
        return pa < pb || (pa == pb && a < b);
      });
  split(part, idx, lo, mid);
  split(part, idx, mid, hi);
}

// The largest k-distance of every chunk holding a frame whose list changed (the balls stay: the
// frames do not move).
void LofIndex::refresh_chunks(const std::vector<char>& changed) {
  const auto k = static_cast<std::size_t>(k_);
  std::vector<Chunk*> dirty;
  for (std::size_t r = 0; r < changed.size(); ++r) {
    if (changed[r]) dirty.push_back(chunk_of_[r]);
  }
  std::sort(dirty.begin(), dirty.end());
  dirty.erase(std::unique(dirty.begin(), dirty.end()), dirty.end());
  for (Chunk* ch : dirty) {
    double kd2 = 0.0;
    for (const auto g : ch->members) {
      kd2 = std::max(kd2, d2_[static_cast<std::size_t>(row(g)) * k + k - 1]);
    }
    ch->max_kd = std::sqrt(kd2);
  }
}

template <class Fn>
void LofIndex::near_sources(const std::vector<std::int64_t>& sources, std::int64_t old_end,
                            Fn fn) const {
  if (sources.empty() || old_end <= first_) return;
  std::vector<double> pts;
  for (const auto s : sources) {
    const auto p = at(s);
    pts.insert(pts.end(), p.begin(), p.end());
  }
  const analysis::KdTree tree(pts, static_cast<int>(dim_));
  for (const auto& part : parts_) {
    if (part->first >= old_end) continue;  // new frames only
    for (const Chunk& ch : part->chunks) {
      const double dc = std::sqrt(tree.nearest(ch.centre, 1)[0].dist2);
      if (dc - ch.radius > (ch.max_kd + ch.radius) * kSlack + ch.max_kd) continue;
      for (const auto g : ch.members) {
        if (g < old_end) fn(g);
      }
    }
  }
}

// Old frames that a new frame displaces from their neighbour list (d2 < their k-distance²; a
// new frame never wins a tie, its index being larger): merged into the list.
void LofIndex::insert_new(std::int64_t old_end, std::vector<char>& changed) {
  std::vector<std::int64_t> fresh;
  for (std::int64_t g = old_end; g < end_; ++g) fresh.push_back(g);
  if (fresh.empty()) return;
  const auto k = static_cast<std::size_t>(k_);
  std::vector<double> pts(pts_.begin() + static_cast<std::ptrdiff_t>(row(old_end)) * dim_,
                          pts_.end());
  const analysis::KdTree tree(pts, static_cast<int>(dim_));
  near_sources(fresh, old_end, [&](std::int64_t g) {
    const auto r = static_cast<std::size_t>(row(g));
    if (changed[r]) return;  // requeried over the whole pool already
    const double kd2 = d2_[r * k + k - 1];
    // One nearest-neighbour query rules out most frames before the k-nearest one.
    if (!(tree.nearest(at(g), 1)[0].dist2 < kd2)) return;
    std::vector<analysis::KdTree::Neighbour> list;
    for (auto n : tree.nearest(at(g), k_)) {
      if (!(n.dist2 < kd2)) break;
      list.push_back({n.index + old_end, n.dist2});
    }
    if (list.empty()) return;
    for (std::size_t m = 0; m < k; ++m) list.push_back({nbr_[r * k + m], d2_[r * k + m]});
    std::sort(list.begin(), list.end(), before);
    for (std::size_t m = 0; m < k; ++m) {
      nbr_[r * k + m] = list[m].index;
      d2_[r * k + m] = list[m].dist2;
    }
    changed[r] = 1;
  });
}

// lrd of the frames whose list changed or with a neighbour whose k-distance changed; LOF of those
// with a changed lrd or a neighbour with one (formulas of analysis::local_outlier_factor).
void LofIndex::rescore(std::int64_t old_end, const std::vector<char>& changed,
                       const std::vector<double>& old_kd2) {
  const auto k = static_cast<std::size_t>(k_);
  const auto n = lrd_.size();
  const auto kd = [&](std::size_t r) { return std::sqrt(d2_[r * k + k - 1]); };
  std::vector<char> kd_moved(n, 0), redo(n, 0);
  std::vector<std::int64_t> sources;
  for (std::size_t r = 0; r < n; ++r) {
    redo[r] = changed[r];
    if (changed[r] && !(d2_[r * k + k - 1] == old_kd2[r])) {
      kd_moved[r] = 1;
      sources.push_back(first_ + static_cast<std::int64_t>(r));
    }
  }
  const auto mark_if_neighbour_in = [&](const std::vector<char>& set, std::vector<char>& out) {
    return [&](std::int64_t g) {
      const auto r = static_cast<std::size_t>(row(g));
      for (std::size_t m = 0; m < k && !out[r]; ++m) {
        if (set[static_cast<std::size_t>(row(nbr_[r * k + m]))]) out[r] = 1;
      }
    };
  };
  near_sources(sources, old_end, mark_if_neighbour_in(kd_moved, redo));
  std::vector<char> lrd_moved(n, 0), relof(n, 0);
  sources.clear();
  for (std::size_t r = 0; r < n; ++r) {
    if (!redo[r]) continue;
    double reach = 0.0;
    for (std::size_t m = 0; m < k; ++m) {
      reach +=
          std::max(kd(static_cast<std::size_t>(row(nbr_[r * k + m]))), std::sqrt(d2_[r * k + m]));
    }
    const double lrd = 1.0 / (reach / static_cast<double>(k) + 1e-10);
    relof[r] = 1;
    if (r >= static_cast<std::size_t>(row(old_end)) || !(lrd == lrd_[r])) {
      lrd_moved[r] = 1;
      sources.push_back(first_ + static_cast<std::int64_t>(r));
    }
    lrd_[r] = lrd;
  }
  near_sources(sources, old_end, mark_if_neighbour_in(lrd_moved, relof));
  for (std::size_t r = 0; r < n; ++r) {
    if (!relof[r]) continue;
    double ratio = 0.0;
    for (std::size_t m = 0; m < k; ++m)
      ratio += lrd_[static_cast<std::size_t>(row(nbr_[r * k + m]))];
    lof_[r] = ratio / static_cast<double>(k) / lrd_[r];
  }
}

const std::vector<double>& LofIndex::update(const features::FrameHistory& history,
                                            std::int64_t first) {
  const std::int64_t n = history.frames() - first;
  TRAILS_CHECK(n >= 2, "LofIndex: a pool of at least 2 frames");
  const int k = static_cast<int>(std::min<std::int64_t>(neighbors_, n - 1));
  // Another history (or a replayed one: a spot check of the newest old frame) rebuilds; the
  // campaign also calls reset() whenever it replaces the space.
  const auto same_point = [&](std::int64_t g) {
    const auto a = history.point(g), b = at(g);
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  };
  if (&history != seen_ || history.frames() < end_ || first < first_ || first >= end_ || k != k_ ||
      static_cast<std::size_t>(history.cv_dim()) != dim_ || !same_point(end_ - 1)) {
    reset();
    seen_ = &history;
    dim_ = static_cast<std::size_t>(history.cv_dim());
    k_ = k;
    first_ = end_ = first;
  }
  std::vector<char> changed;
  if (first > first_) drop_front(first, changed);
  const std::int64_t old_end = end_;
  append(history);
  changed.resize(lrd_.size(), 0);
  std::vector<double> old_kd2(lrd_.size(), std::numeric_limits<double>::quiet_NaN());
  const auto kk = static_cast<std::size_t>(k_);
  std::vector<std::int64_t> requery;
  for (std::size_t r = 0; r < changed.size(); ++r) {
    if (changed[r] || first_ + static_cast<std::int64_t>(r) >= old_end) {
      requery.push_back(first_ + static_cast<std::int64_t>(r));
    }
    if (first_ + static_cast<std::int64_t>(r) < old_end) old_kd2[r] = d2_[r * kk + kk - 1];
  }
  // Each query writes only its own row: bitwise the same on any number of threads.
  core::default_pool().parallel_for(requery.size(), kQueryChunk, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const auto r = static_cast<std::size_t>(row(requery[i]));
      const auto found = query(requery[i]);
      for (std::size_t m = 0; m < kk; ++m) {
        nbr_[r * kk + m] = found[m].index;
        d2_[r * kk + m] = found[m].dist2;
      }
    }
  });
  for (const auto g : requery) changed[static_cast<std::size_t>(row(g))] = 1;
  insert_new(old_end, changed);
  refresh_chunks(changed);
  rescore(old_end, changed, old_kd2);
  return lof_;
}

}  // namespace trails::spawners
