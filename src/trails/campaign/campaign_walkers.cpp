// The walkers' side of an iteration: their segment tasks, the failure policy, and the start
// configurations of the next iteration's walkers (from memory, or from the shards on resume and
// for frames of earlier iterations).
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "trails/campaign/campaign_driver.h"
#include "trails/core/error.h"
#include "trails/core/seeds.h"
#include "trails/engines/device_error.h"

namespace trails::campaign {

std::vector<engines::SegmentTask> CampaignDriver::make_tasks(std::int64_t iteration) const {
  std::vector<engines::SegmentTask> tasks;
  tasks.reserve(next_starts_.size());
  for (std::size_t w = 0; w < next_starts_.size(); ++w) {
    engines::SegmentTask t;
    t.task_id = static_cast<std::int64_t>(w);
    t.iteration = iteration;
    t.walker = static_cast<std::int64_t>(w);
    t.start = next_starts_[w];
    t.steps = config_.spawning.step;
    t.stride = config_.spawning.stride;
    t.seed = core::walker_seed(config_.engine_seed_base(), iteration, w);
    tasks.push_back(std::move(t));
  }
  return tasks;
}

void CampaignDriver::check_failures(std::int64_t iteration,
                                    const std::vector<engines::SegmentResult>& results) const {
  const auto n = static_cast<std::int64_t>(results.size());
  const auto ok = std::count_if(results.begin(), results.end(), [](auto& r) { return r.ok(); });
  if (ok == n) return;
  std::string detail;
  int shown = 0;
  for (const auto& r : results) {
    if (r.ok()) continue;
    if (shown++ < 5) detail += "\n  walker " + std::to_string(r.task_id) + ": " + r.error;
  }
  if (ok == 0 || static_cast<double>(ok) < config_.min_success_fraction * static_cast<double>(n)) {
    std::string msg = fmt::format(
        "iteration {}: only {} of {} walkers succeeded (min_success_fraction {}); the iteration "
        "was not committed{}",
        iteration, ok, n, config_.min_success_fraction, detail);
    const bool device = std::all_of(results.begin(), results.end(), [](const auto& r) {
      return r.ok() || engines::is_device_resource_error(r.error);
    });
    if (device) {
      msg +=
          "\nevery failed walker ran out of its device's memory or resources: put fewer walkers "
          "on each device (execution.workers_per_device)";
    } else if (iteration == 0 && ok == 0) {
      msg +=
          "\nevery walker failed in the first iteration: check system.start and reduce engine.dt";
    }
    throw core::EngineError(msg);
  }
  spdlog::warn("iteration {}: {} of {} walkers failed; continuing with the survivors{}", iteration,
               n - ok, n, detail);
}

void CampaignDriver::fail_non_finite_cvs(IterationState& it) {
  auto& rec = it.rec;
  std::int64_t n_frames = 0;
  for (const auto& s : it.spans) n_frames += s.n_frames;
  if (n_frames == 0) return;
  const auto dim = rec.cvs.size() / static_cast<std::size_t>(n_frames);
  const auto atom_values =
      static_cast<std::size_t>(rec.n_atoms) * static_cast<std::size_t>(rec.spatial_dim);
  // The first non-finite CV of each walker, by its span.
  std::map<std::int64_t, std::string> bad;
  std::size_t row = 0;  // the span's first frame
  for (const auto& s : it.spans) {
    for (std::int64_t f = 0; f < s.n_frames && !bad.contains(s.walker); ++f) {
      for (std::size_t c = 0; c < dim; ++c) {
        const double v = rec.cvs[(row + static_cast<std::size_t>(f)) * dim + c];
        if (std::isfinite(v)) continue;
        bad[s.walker] = fmt::format(
            "walker {} of iteration {}: collective variable {} of frame {} is {}; the walker's "
            "frames are not kept (check the CV definition or the frames the engine wrote)",
            s.walker, it.iteration, c, f, v);
        break;
      }
    }
    row += static_cast<std::size_t>(s.n_frames);
  }
  if (bad.empty()) return;
  // Keep the other walkers' rows, in walker order.
  std::vector<double> positions, boxes, cvs;
  std::vector<features::FrameHistory::WalkerSpan> spans;
  std::size_t first = 0;
  for (const auto& s : it.spans) {
    const auto n = static_cast<std::size_t>(s.n_frames);
    if (!bad.contains(s.walker)) {
      const auto take = [&](const std::vector<double>& from, std::vector<double>& to,
                            std::size_t width) {
        if (from.empty()) return;
        to.insert(to.end(), from.begin() + static_cast<std::ptrdiff_t>(first * width),
                  from.begin() + static_cast<std::ptrdiff_t>((first + n) * width));
      };
      take(rec.positions, positions, atom_values);
      take(rec.boxes, boxes, 9);
      take(rec.cvs, cvs, dim);
      spans.push_back(s);
    }
    first += n;
  }
  rec.positions = std::move(positions);
  rec.boxes = std::move(boxes);
  rec.cvs = std::move(cvs);
  it.spans = std::move(spans);
  std::erase_if(rec.final_states, [&](const auto& f) { return bad.contains(f.walker); });
  for (const auto& [walker, why] : bad) {
    auto& w = rec.walkers[static_cast<std::size_t>(walker)];
    w.ok = false;
    w.error = why;
    w.n_frames = 0;
    auto& r = it.results[static_cast<std::size_t>(walker)];
    r.status = engines::SegmentStatus::Failed;
    r.error = why;
  }
  check_failures(it.iteration, it.results);
  // The pending shard already holds these walkers' positions: write it again without them.
  it.shard.reset();
  it.shard.emplace(store_->begin_shard(it.iteration, it.shard_layout));
  first = 0;
  for (const auto& s : it.spans) {
    const auto n = static_cast<std::size_t>(s.n_frames) * atom_values;
    it.shard->append(std::span<const double>(rec.positions).subspan(first, n));
    first += n;
  }
}

std::vector<engines::Configuration> CampaignDriver::restart_configurations(
    const std::vector<store::SpawnChoice>& spawns) const {
  std::vector<core::FrameKey> keys;
  for (const auto& s : spawns) keys.push_back(s.source);
  return configurations_of(store_->load_frames(keys));
}

template <typename Stored>
std::vector<engines::Configuration> CampaignDriver::configurations_of(
    std::vector<Stored>&& stored) const {
  std::vector<engines::Configuration> starts(stored.size());
  for (std::size_t k = 0; k < stored.size(); ++k) {
    starts[k].n_atoms = engine_->n_atoms();
    starts[k].spatial_dim = engine_->spatial_dim();
    starts[k].positions = std::move(stored[k].positions);
    starts[k].box = std::move(stored[k].box);
  }
  return starts;
}

std::vector<engines::Configuration> CampaignDriver::resume_starts(
    const store::IterationRecord& last) const {
  auto stored = store_->load_spawn_starts(last.iteration);
  if (stored.empty()) return restart_configurations(last.spawns);
  TRAILS_CHECK(stored.size() == last.spawns.size(), "one stored start per spawn slot");
  return configurations_of(std::move(stored));
}

std::vector<engines::Configuration> CampaignDriver::next_configurations(
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
    c.n_atoms = engine_->n_atoms();
    c.spatial_dim = engine_->spatial_dim();
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

std::vector<double> CampaignDriver::slot_weights(std::size_t n) const {
  const auto* w = spawner_->weighting();
  if (w == nullptr || w->weights.empty()) return {};
  TRAILS_CHECK(w->weights.size() == n, "one weight per walker of the last spawn");
  return w->weights;
}

void CampaignDriver::continue_end_states(const std::vector<core::FrameKey>& sources,
                                         const std::vector<store::FinalState>& finals) {
  const auto* w = spawner_->weighting();
  TRAILS_CHECK(w != nullptr && w->recycled.size() == sources.size(),
               "inherit_velocities comes with a weighted spawner (config/)");
  TRAILS_CHECK(next_starts_.size() == sources.size(), "one start per spawn slot");
  for (std::size_t k = 0; k < sources.size(); ++k) {
    if (w->recycled[k]) continue;  // the basis structure, fresh Maxwell–Boltzmann velocities
    const auto fs = std::find_if(finals.begin(), finals.end(),
                                 [&](const auto& f) { return f.walker == sources[k].walker; });
    TRAILS_CHECK(fs != finals.end(), "the weighted ensemble spawns from ends of ok segments");
    if (fs->velocities.empty()) {
      throw core::EngineError(fmt::format(
          "spawning.inherit_velocities: walker {} reported no velocities to continue; use an "
          "engine that continues velocities (openmm, builtin with integrator: langevin)",
          fs->walker));
    }
    auto& c = next_starts_[k];
    c.positions = fs->positions;
    c.velocities = fs->velocities;
    c.box = fs->box;
  }
}

double CampaignDriver::record_dt() const {
  // engine.dt in the engine's own unit (EngineSystem::time_unit).
  return engine_->system().dt;
}

}  // namespace trails::campaign
