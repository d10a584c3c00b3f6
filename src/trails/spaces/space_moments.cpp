// SpaceMoments: one of the two moment accumulators (or neither) behind one interface.
#include "trails/spaces/space_moments.h"

#include "trails/core/error.h"
#include "trails/core/thread_pool.h"

namespace trails::spaces {

const char* moments_algorithm_name(MomentsAlgorithm a) {
  switch (a) {
    case MomentsAlgorithm::Running:
      return "running";
    case MomentsAlgorithm::Reversible:
      return "reversible";
    case MomentsAlgorithm::ReversibleRows:
      return "reversible_rows";
    case MomentsAlgorithm::Frames:
      return "frames";
  }
  return "running";
}

std::optional<MomentsAlgorithm> parse_moments_algorithm(const std::string& name) {
  for (const auto a : {MomentsAlgorithm::Running, MomentsAlgorithm::Reversible,
                       MomentsAlgorithm::ReversibleRows, MomentsAlgorithm::Frames}) {
    if (name == moments_algorithm_name(a)) return a;
  }
  return std::nullopt;
}

SpaceMoments::SpaceMoments(MomentsAlgorithm algorithm, int n_features, int lagtime)
    : algorithm_(algorithm), lag_(lagtime) {
  if (algorithm == MomentsAlgorithm::Running) running_.emplace(n_features, lagtime);
  if (algorithm == MomentsAlgorithm::Reversible)
    reversible_.emplace(n_features, lagtime, analysis::ReversibleMoments::Summation::Blocked);
  if (algorithm == MomentsAlgorithm::ReversibleRows)
    reversible_.emplace(n_features, lagtime, analysis::ReversibleMoments::Summation::Rows);
}

void SpaceMoments::add_segments(const Eigen::Ref<const analysis::FrameMatrix>& frames,
                                std::span<const std::int64_t> segment_frames, int n_threads) {
  // Both results are bitwise independent of the thread count.
  const int threads = n_threads > 0 ? n_threads : core::default_pool().size();
  if (running_) running_->add_segments(frames, segment_frames, threads);
  if (reversible_) reversible_->add_segments(frames, segment_frames, threads);
  frames_ += frames.rows();
}

void SpaceMoments::merge(const SpaceMoments& other) {
  TRAILS_CHECK(other.algorithm_ == algorithm_, "memory blocks share one moments algorithm");
  if (running_) running_->merge(*other.running_);
  if (reversible_) reversible_->merge(*other.reversible_);
  frames_ += other.frames_;
}

analysis::Covariances SpaceMoments::reversible() const {
  if (running_) return running_->lagged({analysis::MeanRemoval::Separate, true});
  TRAILS_CHECK(reversible_.has_value(), "lagged moments are kept (not the frames algorithm)");
  return reversible_->covariances();
}

}  // namespace trails::spaces
