#include "trails/swarm/subframes.h"

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/engines/registry.h"
#include "trails/store/run_store.h"
#include "trails/swarm/chain.h"
#include "trails/swarm/swarm_store.h"

namespace trails::swarm {
namespace {

std::uint64_t seed_of(const std::vector<store::WalkerRecord>& walkers, std::int64_t walker,
                      const store::CycleRecord& r) {
  for (const auto& w : walkers) {
    if (w.walker == walker) return w.seed;
  }
  throw core::StoreError(
      fmt::format("chain {}, cycle {}: walker {} is not in the store", r.chain, r.cycle, walker));
}

class Replay {
 public:
  Replay(const config::SwarmConfig& config, const store::RunStore& store,
         const engines::Engine& engine)
      : o_(config.swarm), store_(store), instance_(engine.make_instance()) {}

  // Runs one segment of `r`'s cycle and appends its frames to `path`, from `steps_before`.
  engines::SegmentResult segment(const store::CycleRecord& r, engines::Configuration start,
                                 std::int64_t steps, std::uint64_t seed, std::int64_t walker,
                                 std::int64_t steps_before, SubframePath& path) {
    engines::SegmentTask t;
    t.iteration = r.cycle;
    t.walker = walker;
    t.start = std::move(start);
    t.steps = steps;
    t.stride = o_.subframe_stride;
    t.seed = seed;
    engines::SegmentResult res = instance_->run(t);
    if (!res.ok()) {
      throw core::EngineError(fmt::format(
          "subframes: replaying chain {}, cycle {} (walker {}) failed: {}; the stored run is "
          "kept, set save_subframes: false to skip the replay",
          r.chain, r.cycle, walker, res.error));
    }
    path.n_atoms = res.n_atoms;
    path.spatial_dim = res.spatial_dim;
    path.positions.insert(path.positions.end(), res.frames.begin(), res.frames.end());
    path.boxes.insert(path.boxes.end(), res.frame_boxes.begin(), res.frame_boxes.end());
    for (std::int64_t j = 1; j <= res.n_frames; ++j) {
      path.cycles.push_back(r.cycle);
      path.path_steps.push_back(steps_before + j * o_.subframe_stride);
    }
    return res;
  }

  // Replays one cycle from `anchor` (the stored anchor before it); returns the stored anchor
  // after it.
  engines::Configuration cycle(const store::CycleRecord& r, std::int64_t iteration,
                               const engines::Configuration& anchor, std::int64_t steps_before,
                               SubframePath& path) {
    const auto walkers = store_.walker_placements(iteration);
    engines::Configuration start = anchor;
    start.velocities.clear();  // a trial draws fresh velocities from its seed
    engines::SegmentResult end =
        segment(r, std::move(start), o_.tau1_steps, seed_of(walkers, r.chosen, r), r.chosen,
                steps_before, path);
    if (r.outcome == store::CycleOutcome::Extended) {
      // The extension is the walker after the trials that ran; velocities continued.
      const auto n = static_cast<std::int64_t>(r.trial_metrics.size());
      end = segment(r, end.final_state, o_.tau2_steps, seed_of(walkers, n, r), n,
                    steps_before + o_.tau1_steps, path);
    }
    ++path.anchors_replayed;
    engines::Configuration stored = stored_anchor(store_, *r.anchor, anchor);
    if (stored.positions != end.final_state.positions ||
        (!stored.box.empty() && stored.box != end.final_state.box)) {
      path.mismatched_cycles.push_back(r.cycle);
    }
    return stored;
  }

 private:
  const config::SwarmOptions& o_;
  const store::RunStore& store_;
  std::unique_ptr<engines::EngineInstance> instance_;
};

}  // namespace

std::vector<SubframePath> replay_subframes(const config::SwarmConfig& config) {
  const auto store = store::RunStore::open(config.workdir, store::RunStore::Mode::ReadOnly);
  const auto engine = engines::make_engine(config.engine_spec(), config.workdir);
  const auto records = load_cycle_records(store);
  std::vector<SubframePath> paths(static_cast<std::size_t>(config.swarm.paths));
  std::vector<engines::Configuration> anchors;
  for (int k = 0; k < config.swarm.paths; ++k) anchors.push_back(chain_start(config, *engine, k));
  Replay replay(config, store, *engine);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const store::CycleRecord& r = records[i];
    const auto k = static_cast<std::size_t>(r.chain);
    if (r.outcome == store::CycleOutcome::KeptAnchor) continue;  // the path stays where it was
    // The path's steps before this cycle: its total less what the cycle added.
    const std::int64_t added =
        config.swarm.tau1_steps +
        (r.outcome == store::CycleOutcome::Extended ? config.swarm.tau2_steps : 0);
    // The next cycle starts from the stored anchor, so a difference cannot accumulate.
    anchors[k] =
        replay.cycle(r, static_cast<std::int64_t>(i), anchors[k], r.path_steps - added, paths[k]);
  }
  return paths;
}

}  // namespace trails::swarm
