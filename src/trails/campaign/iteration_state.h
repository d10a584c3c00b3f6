// Private to the campaign module: what one iteration's elements hand on to each other, in the
// order they run (docs/architecture.md, "One iteration"). Built fresh by the driver for each
// iteration; an element reads what the elements before it wrote and adds its own part.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "trails/campaign/campaign.h"
#include "trails/engines/segment.h"
#include "trails/features/frame_history.h"
#include "trails/msm/msm_stage.h"
#include "trails/store/run_store.h"

namespace trails::campaign {

struct IterationState {
  using Clock = std::chrono::steady_clock;
  std::int64_t iteration = 0;
  Clock::time_point t_start, t_analysis;
  std::vector<engines::SegmentTask> tasks;
  std::vector<engines::SegmentResult> results;  // by walker; frames moved into rec as collected
  std::vector<features::FrameHistory::WalkerSpan> spans;  // the ok walkers, in walker order
  store::IterationRecord rec;                             // what the commit writes
  std::optional<store::PendingShard> shard;  // rec's positions, appended as walkers finish
  store::ShardLayout shard_layout;           // what `shard` was begun with
  std::int64_t first_frame = 0;              // history index of this iteration's first frame
  std::vector<std::int64_t> chosen;          // history indices of the spawned frames
  std::optional<msm::MsmBuild> msm_built;    // the build joined in this iteration
  double runner_s = 0.0, msm_wait_s = 0.0, commit_s = 0.0;
  IterationReport report;
};

// Seconds since t0 on the iteration's clock.
double seconds_since(IterationState::Clock::time_point t0);

}  // namespace trails::campaign
