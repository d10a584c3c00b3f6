#include "trails/campaign/start_states_element.h"

#include <algorithm>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/seeds.h"

namespace trails::campaign {

StartStatesElement::StartStatesElement(StartStatesOptions options,
                                       const features::FrameHistory& history,
                                       const LearnedSpaceElement* space, const SpawnElement& spawn,
                                       const std::optional<store::RunStore>& store)
    : options_(options), history_(history), space_(space), spawn_(spawn), store_(store) {}

void StartStatesElement::run(IterationState& it) {
  parents_from(it.rec.spawns);
  if (options_.from_cv_rows) {
    // The chosen frames' coordinates are the CV rows already in memory (bit-identical to their
    // shards, which resume reads).
    starts_.clear();
    for (const auto g : it.chosen) {
      engines::Configuration c;
      c.n_atoms = options_.n_atoms;
      c.spatial_dim = options_.spatial_dim;
      const auto p = space_ != nullptr ? space_->stage().features_of(g) : history_.point(g);
      c.positions.assign(p.begin(), p.end());
      starts_.push_back(std::move(c));
    }
  } else {
    // Positions and box of each chosen frame: this iteration's from memory, older ones from their
    // shards (exactly what resume reads, so both paths agree bitwise; on a position grid the
    // frames in memory are already the grid frames, collect_segments).
    starts_ = next_configurations(it.rec);
  }
  // A reduced shard cannot give back the chosen frames: store the starts in full (the config
  // allows a reduced policy only with spawns from this iteration, docs/file-formats.md).
  if (options_.store_starts) {
    for (std::size_t k = 0; k < starts_.size(); ++k) {
      it.rec.spawn_starts.push_back(
          {static_cast<std::int64_t>(k), starts_[k].positions, {}, starts_[k].box});
    }
  }
  // Weighted-ensemble kinetics: children continue their parent's end state.
  if (options_.inherit_velocities) continue_end_states(it.rec.spawns, it.rec.final_states);
}

void StartStatesElement::start_with(std::vector<engines::Configuration> starts) {
  parents_.assign(starts.size(), std::nullopt);
  starts_ = std::move(starts);
}

void StartStatesElement::resume(const store::IterationRecord& last) {
  // The stored spawn starts when the record policy reduced the shards, else the spawned frames
  // read from the shards.
  auto stored = store_->load_spawn_starts(last.iteration);
  if (stored.empty()) {
    starts_ = restart_configurations(last.spawns);
  } else {
    TRAILS_CHECK(stored.size() == last.spawns.size(), "one stored start per spawn slot");
    starts_ = configurations_of(std::move(stored));
  }
  if (options_.inherit_velocities) {  // the end states, as the uninterrupted run had
    continue_end_states(last.spawns, store_->load_final_states(last.iteration));
  }
  parents_from(last.spawns);
}

std::vector<engines::SegmentTask> StartStatesElement::make_tasks(std::int64_t iteration) const {
  std::vector<engines::SegmentTask> tasks;
  tasks.reserve(starts_.size());
  for (std::size_t w = 0; w < starts_.size(); ++w) {
    engines::SegmentTask t;
    t.task_id = static_cast<std::int64_t>(w);
    t.iteration = iteration;
    t.walker = static_cast<std::int64_t>(w);
    t.start = starts_[w];
    t.steps = options_.steps;
    t.stride = options_.stride;
    t.seed = core::walker_seed(options_.seed_base, iteration, w);
    tasks.push_back(std::move(t));
  }
  return tasks;
}

void StartStatesElement::parents_from(const std::vector<store::SpawnChoice>& spawns) {
  parents_.clear();
  for (const auto& s : spawns) parents_.emplace_back(s.source);
}

template <typename Stored>
std::vector<engines::Configuration> StartStatesElement::configurations_of(
    std::vector<Stored>&& stored) const {
  std::vector<engines::Configuration> starts(stored.size());
  for (std::size_t k = 0; k < stored.size(); ++k) {
    starts[k].n_atoms = options_.n_atoms;
    starts[k].spatial_dim = options_.spatial_dim;
    starts[k].positions = std::move(stored[k].positions);
    starts[k].box = std::move(stored[k].box);
  }
  return starts;
}

std::vector<engines::Configuration> StartStatesElement::restart_configurations(
    const std::vector<store::SpawnChoice>& spawns) const {
  std::vector<core::FrameKey> keys;
  for (const auto& s : spawns) keys.push_back(s.source);
  return configurations_of(store_->load_frames(keys));
}

std::vector<engines::Configuration> StartStatesElement::next_configurations(
    const store::IterationRecord& rec) const {
  const auto frame_size =
      static_cast<std::size_t>(rec.n_atoms) * static_cast<std::size_t>(rec.spatial_dim);
  std::vector<engines::Configuration> starts(rec.spawns.size());
  std::vector<store::SpawnChoice> older;  // frames of earlier iterations: read from shards
  std::vector<std::size_t> older_slot;
  // Shard row of each ok walker's first frame in this iteration.
  std::vector<std::int64_t> first_row(rec.walkers.size(), -1);
  std::int64_t row = 0;
  for (std::size_t w = 0; w < rec.walkers.size(); ++w) {
    if (!rec.walkers[w].ok) continue;
    first_row[w] = row;
    row += rec.walkers[w].n_frames;
  }
  for (std::size_t k = 0; k < rec.spawns.size(); ++k) {
    const auto& key = rec.spawns[k].source;
    auto& c = starts[k];
    c.n_atoms = options_.n_atoms;
    c.spatial_dim = options_.spatial_dim;
    if (key.iteration != rec.iteration) {
      older.push_back(rec.spawns[k]);
      older_slot.push_back(k);
      continue;
    }
    const auto r =
        static_cast<std::size_t>(first_row.at(static_cast<std::size_t>(key.walker)) + key.frame);
    c.positions.assign(rec.positions.begin() + static_cast<std::ptrdiff_t>(r * frame_size),
                       rec.positions.begin() + static_cast<std::ptrdiff_t>((r + 1) * frame_size));
    if (!rec.boxes.empty()) {
      c.box.assign(rec.boxes.begin() + static_cast<std::ptrdiff_t>(r * 9),
                   rec.boxes.begin() + static_cast<std::ptrdiff_t>((r + 1) * 9));
    }
  }
  if (!older.empty()) {
    auto loaded = restart_configurations(older);
    for (std::size_t i = 0; i < older.size(); ++i) starts[older_slot[i]] = std::move(loaded[i]);
  }
  return starts;
}

void StartStatesElement::continue_end_states(const std::vector<store::SpawnChoice>& spawns,
                                             const std::vector<store::FinalState>& finals) {
  const auto* w = spawn_.spawner().weighting();
  TRAILS_CHECK(w != nullptr && w->recycled.size() == spawns.size(),
               "inherit_velocities comes with a weighted spawner (config/)");
  TRAILS_CHECK(starts_.size() == spawns.size(), "one start per spawn slot");
  for (std::size_t k = 0; k < spawns.size(); ++k) {
    if (w->recycled[k]) continue;  // the basis structure, fresh Maxwell–Boltzmann velocities
    const auto& source = spawns[k].source;
    const auto fs = std::find_if(finals.begin(), finals.end(),
                                 [&](const auto& f) { return f.walker == source.walker; });
    TRAILS_CHECK(fs != finals.end(), "the weighted ensemble spawns from ends of ok segments");
    if (fs->velocities.empty()) {
      throw core::EngineError(fmt::format(
          "spawning.inherit_velocities: walker {} reported no velocities to continue; use an "
          "engine that continues velocities (openmm, builtin with integrator: langevin)",
          fs->walker));
    }
    auto& c = starts_[k];
    c.positions = fs->positions;
    c.velocities = fs->velocities;
    c.box = fs->box;
  }
}

}  // namespace trails::campaign
