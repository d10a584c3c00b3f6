// Private to the campaign module: the start-states element (docs/architecture.md, "Campaign
// elements"). Owns the next iteration's walkers: each one's start configuration and parent
// frame, and their segment tasks. Its step turns the spawn's choices into starts: the CV rows
// themselves when they are the coordinates (built-in engine), else the full-precision frames
// (this iteration's from memory, older ones from the run store); stored in full with the record
// when the record policy reduces the shards; with spawning.inherit_velocities each start the
// spawner did not recycle continues its parent's end state, velocities included. Nothing of it
// goes into the element state: the record's spawns, spawn starts and final states are its
// checkpoint, and resume() rebuilds it from the last record exactly.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "trails/campaign/campaign_element.h"
#include "trails/campaign/learned_space_element.h"
#include "trails/campaign/spawn_element.h"
#include "trails/core/frame_key.h"
#include "trails/engines/segment.h"
#include "trails/features/frame_history.h"
#include "trails/store/run_store.h"

namespace trails::campaign {

struct StartStatesOptions {
  int n_atoms = 0, spatial_dim = 0;  // of every start configuration
  bool from_cv_rows = false;         // the CV space is the coordinate space (identity)
  bool store_starts = false;         // the record policy reduces the shards' positions
  bool inherit_velocities = false;   // spawning.inherit_velocities
  std::int64_t steps = 0, stride = 1;
  std::uint64_t seed_base = 0;  // engine.seed, else random_seed
};

class StartStatesElement final : public IterationElement {
 public:
  // `space`: a learned space keeps the coordinates of its frames (nullptr for a fixed space);
  // `spawn`: a weighted spawner says which slots it recycled; `store` is read when it has one.
  StartStatesElement(StartStatesOptions options, const features::FrameHistory& history,
                     const LearnedSpaceElement* space, const SpawnElement& spawn,
                     const std::optional<store::RunStore>& store);

  std::string_view name() const override { return "starts"; }
  void run(IterationState& it) override;

  // The first walkers: these starts, without parents.
  void start_with(std::vector<engines::Configuration> starts);
  // Resume: the starts and parents the walkers after `last` had in the uninterrupted run.
  void resume(const store::IterationRecord& last);

  // One segment task per walker of `iteration`, with its per-walker seed.
  std::vector<engines::SegmentTask> make_tasks(std::int64_t iteration) const;
  const std::optional<core::FrameKey>& parent(std::size_t walker) const {
    return parents_.at(walker);
  }
  const std::vector<engines::Configuration>& starts() const { return starts_; }

 private:
  void parents_from(const std::vector<store::SpawnChoice>& spawns);
  template <typename Stored>
  std::vector<engines::Configuration> configurations_of(std::vector<Stored>&& stored) const;
  // Start configurations of the chosen frames, read from their shards (positions at full
  // precision and the frame's box).
  std::vector<engines::Configuration> restart_configurations(
      const std::vector<store::SpawnChoice>& spawns) const;
  // This iteration's spawn choices: frames of `rec` (just produced) from memory, older ones
  // from their shards.
  std::vector<engines::Configuration> next_configurations(const store::IterationRecord& rec) const;
  // Each start whose source is the end frame of a segment of `finals` continues that end state
  // at full precision; slots the spawner recycled keep the basis and fresh velocities.
  void continue_end_states(const std::vector<store::SpawnChoice>& spawns,
                           const std::vector<store::FinalState>& finals);

  StartStatesOptions options_;
  const features::FrameHistory& history_;
  const LearnedSpaceElement* space_;
  const SpawnElement& spawn_;
  const std::optional<store::RunStore>& store_;
  std::vector<engines::Configuration> starts_;
  std::vector<std::optional<core::FrameKey>> parents_;
};

}  // namespace trails::campaign
