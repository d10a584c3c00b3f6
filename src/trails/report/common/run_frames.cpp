#include "trails/report/common/run_frames.h"

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::report {

RunFrames::RunFrames(const std::vector<store::IterationRecord>& records) {
  if (!records.empty()) dim_ = records.front().cv_dim;
  for (const auto& r : records) {
    if (r.cv_dim != dim_) {
      throw core::InputError(fmt::format(
          "iteration {} records {} CVs per frame but iteration {} records {}; a path needs one CV "
          "space",
          r.iteration, r.cv_dim, records.front().iteration, dim_));
    }
    for (const auto& w : r.walkers) {
      if (!w.ok || w.n_frames == 0) continue;
      segments_[{r.iteration, w.walker}] = {keys_.size(), w.n_frames, w.parent};
      for (std::int64_t f = 0; f < w.n_frames; ++f) {
        keys_.push_back({r.iteration, w.walker, f});
        time_.push_back(static_cast<double>((f + 1) * r.stride) * r.dt);
      }
    }
    cvs_.insert(cvs_.end(), r.cvs.begin(), r.cvs.end());
    TRAILS_CHECK(cvs_.size() == keys_.size() * static_cast<std::size_t>(dim_),
                 "walker frame counts disagree with the iteration's CV rows");
  }
}

std::span<const double> RunFrames::cv(std::size_t row) const {
  return std::span<const double>(cvs_).subspan(row * static_cast<std::size_t>(dim_),
                                               static_cast<std::size_t>(dim_));
}

std::int64_t RunFrames::segment_length(const core::FrameKey& key) const {
  const auto it = segments_.find({key.iteration, key.walker});
  return it == segments_.end() ? 0 : it->second.n_frames;
}

std::optional<std::size_t> RunFrames::row_of(const core::FrameKey& key) const {
  const auto it = segments_.find({key.iteration, key.walker});
  if (it == segments_.end() || key.frame < 0 || key.frame >= it->second.n_frames) {
    return std::nullopt;
  }
  return it->second.first_row + static_cast<std::size_t>(key.frame);
}

std::optional<core::FrameKey> RunFrames::recorded_parent(const core::FrameKey& key) const {
  const auto it = segments_.find({key.iteration, key.walker});
  if (it == segments_.end()) return std::nullopt;
  if (key.frame > 0) return core::FrameKey{key.iteration, key.walker, key.frame - 1};
  return it->second.parent;
}

std::optional<core::FrameKey> RunFrames::parent_of(const core::FrameKey& key) const {
  auto parent = recorded_parent(key);
  if (parent && !row_of(*parent)) return std::nullopt;
  return parent;
}

}  // namespace trails::report
