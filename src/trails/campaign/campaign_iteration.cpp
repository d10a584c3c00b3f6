// One iteration of the campaign driver, in Trails-MD's order (compat:iteration-order): segments →
// fixed-CV projection → incremental bins → spawn → coverage and resolution → atomic commit → log.
#include <algorithm>
#include <chrono>
#include <numeric>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "trails/campaign/campaign_driver.h"
#include "trails/core/crash_point.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"
#include "trails/core/seeds.h"

namespace trails::campaign {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

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
    if (iteration == 0 && ok == 0) {
      msg +=
          "\nevery walker failed in the first iteration: check system.start and reduce engine.dt";
    }
    throw core::EngineError(msg);
  }
  spdlog::warn("iteration {}: {} of {} walkers failed; continuing with the survivors{}", iteration,
               n - ok, n, detail);
}

std::vector<engines::Configuration> CampaignDriver::restart_configurations(
    const std::vector<store::SpawnChoice>& spawns) const {
  std::vector<core::FrameKey> keys;
  for (const auto& s : spawns) keys.push_back(s.source);
  auto frames = store_->load_frames(keys);
  std::vector<engines::Configuration> starts(spawns.size());
  for (std::size_t k = 0; k < spawns.size(); ++k) {
    starts[k].n_atoms = engine_->n_atoms();
    starts[k].spatial_dim = engine_->spatial_dim();
    starts[k].positions = std::move(frames[k].positions);
    starts[k].box = std::move(frames[k].box);
  }
  return starts;
}

std::vector<engines::Configuration> CampaignDriver::resume_starts(
    const store::IterationRecord& last) const {
  auto stored = store_->load_spawn_starts(last.iteration);
  if (stored.empty()) return restart_configurations(last.spawns);
  TRAILS_CHECK(stored.size() == last.spawns.size(), "one stored start per spawn slot");
  std::vector<engines::Configuration> starts(stored.size());
  for (std::size_t k = 0; k < stored.size(); ++k) {
    starts[k].n_atoms = engine_->n_atoms();
    starts[k].spatial_dim = engine_->spatial_dim();
    starts[k].positions = std::move(stored[k].positions);
    starts[k].box = std::move(stored[k].box);
  }
  return starts;
}

std::vector<engines::Configuration> CampaignDriver::next_configurations(
    const store::IterationRecord& rec) const {
  const auto frame_size = static_cast<std::size_t>(rec.n_atoms * rec.spatial_dim);
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

double CampaignDriver::record_dt() const {
  // engine.dt in the engine's own unit (EngineSystem::time_unit).
  return engine_->system().dt;
}

IterationReport CampaignDriver::run_iteration(std::int64_t iteration) {
  const auto t_start = Clock::now();
  const auto tasks = make_tasks(iteration);
  std::vector<engines::SegmentResult> results(tasks.size());
  executor_->run_batch(tasks, [&](engines::SegmentResult&& r) {
    core::crash_point("md", iteration);  // tests: SIGKILL while walkers are still running
    const auto id = static_cast<std::size_t>(r.task_id);
    results[id] = std::move(r);
  });
  const double runner_s = seconds_since(t_start);
  const auto t_analysis = Clock::now();
  check_failures(iteration, results);
  // The MSM build of an earlier iteration ran during this MD; it is needed from here on.
  double msm_wait_s = 0.0;
  const auto msm_built = join_msm(&msm_wait_s);

  store::IterationRecord rec;
  rec.iteration = iteration;
  rec.cv_dim = history_.cv_dim();
  rec.n_atoms = engine_->n_atoms();
  rec.spatial_dim = engine_->spatial_dim();
  rec.stride = config_.spawning.stride;
  rec.dt = record_dt();
  rec.record_policy = record_policy_;
  rec.state_versions = state_versions();
  std::vector<features::FrameHistory::WalkerSpan> spans;
  std::size_t frame_values = 0;
  for (const auto& r : results) frame_values += r.ok() ? r.frames.size() : 0;
  rec.positions.reserve(frame_values);
  for (std::size_t w = 0; w < results.size(); ++w) {
    auto& r = results[w];
    store::WalkerRecord wr;
    wr.walker = static_cast<std::int64_t>(w);
    wr.seed = tasks[w].seed;
    wr.ok = r.ok();
    wr.error = r.error;
    wr.n_frames = r.ok() ? r.n_frames : 0;
    wr.parent = next_parents_[w];
    wr.startup_s = r.startup_s;
    wr.integrate_s = r.integrate_s;
    wr.platform = r.platform;
    wr.device = r.device;
    wr.visible_devices = r.visible_devices;
    wr.host = r.host;
    // Every segment weighs the same until a resampler sets weights (docs/file-formats.md).
    wr.weight = 1.0 / static_cast<double>(results.size());
    rec.walkers.push_back(wr);
    if (!r.ok()) continue;
    spans.push_back({wr.walker, r.n_frames});
    rec.positions.insert(rec.positions.end(), r.frames.begin(), r.frames.end());
    std::vector<double>().swap(r.frames);  // the record now holds the iteration's one copy
    if (!r.frame_boxes.empty()) {
      rec.boxes.insert(rec.boxes.end(), r.frame_boxes.begin(), r.frame_boxes.end());
      std::vector<double>().swap(r.frame_boxes);
    }
    rec.final_states.push_back({wr.walker, std::move(r.final_state.positions),
                                std::move(r.final_state.velocities), std::move(r.final_state.box)});
  }
  // A box is all or nothing: a periodic system gives one per frame of every ok walker.
  TRAILS_CHECK(rec.boxes.empty() ||
                   rec.boxes.size() / 9 * static_cast<std::size_t>(rec.n_atoms * rec.spatial_dim) ==
                       rec.positions.size(),
               "walkers must all report a box per frame, or none");
  // features::Projection into the fixed CV space (identity for built-in runs: the coordinates
  // themselves).
  const auto n_new =
      static_cast<std::int64_t>(rec.positions.size()) / std::max(1, rec.n_atoms * rec.spatial_dim);
  if (projection_->is_identity()) {
    rec.cvs = rec.positions;
  } else {
    rec.cvs.reserve(static_cast<std::size_t>(n_new * rec.cv_dim));
    std::vector<features::WalkerFrames> walker_frames;
    for (const auto& s : spans) walker_frames.push_back({s.walker, s.n_frames});
    projection_->project_iteration(iteration, walker_frames, rec.positions, n_new, rec.boxes,
                                   rec.cvs);
  }
  // Learned space: the ledger's CVs are this iteration's projections in the space current now;
  // a molecular run keeps its physical CVs (cvs: or [Rg, RMSD], compat:physical-cvs) in the shard.
  if (space_) {
    if (!projection_->is_identity()) {
      rec.observables.push_back({"physical_cvs", projection_->dimension(), std::move(rec.cvs)});
    }
    rec.cvs = space_->add_iteration(iteration, spans, rec.positions, rec.boxes);
    if (config_.learned.save_features) {
      const auto f = space_->latest_features();
      rec.observables.push_back({"features", space_->n_features(), {f.begin(), f.end()}});
    }
  }
  std::int64_t first_frame = 0;
  if (space_ && space_->retrained()) {
    rebuild_learned_space();
    first_frame = history_.frames() - rec.n_frames();
  } else {
    first_frame = history_.append(iteration, spans, rec.cvs);
    tracker_->add_latest(history_);
  }
  msm_->observe(first_frame, spans);
  if (space_) {
    msm_->set_space_version(space_->space_version());
    // fix:stale-latent-space: after a retrain the model's clustering is of the old space; rebuild
    // it in the new one before anything (the MSM spawner) uses it.
    if (msm_->stale()) {
      const auto t_rebuild = Clock::now();
      record_msm_build(msm_->rebuild_now(iteration, history_));
      msm_wait_s += seconds_since(t_rebuild);
    }
  }

  // Spawn from the candidate pool with this iteration's own random stream.
  core::Rng rng =
      core::Rng::stream(config_.random_seed, "spawn", static_cast<std::uint64_t>(iteration));
  const spawners::SpawnPool pool{history_, tracker_->pool_first_frame(), tracker_->pool(),
                                 tracker_->grid(), msm_->latest()};
  const auto chosen = spawner_->choose(pool, config_.spawning.walker, rng);
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    rec.spawns.push_back({static_cast<std::int64_t>(k), chosen[k] - tracker_->pool_first_frame(),
                          history_.key_of(chosen[k])});
  }
  next_starts_.clear();
  if (projection_->is_identity()) {
    // The CV space is the coordinate space, so the chosen frames' coordinates are already in
    // memory (bit-identical to their shards, which resume reads).
    for (const auto g : chosen) {
      engines::Configuration c;
      c.n_atoms = engine_->n_atoms();
      c.spatial_dim = engine_->spatial_dim();
      const auto p = space_ ? space_->features_of(g) : history_.point(g);
      c.positions.assign(p.begin(), p.end());
      next_starts_.push_back(std::move(c));
    }
  } else {
    // Full-precision positions and box of each chosen frame: this iteration's from memory,
    // older ones from their shards (exactly what resume reads, so both paths agree bitwise).
    next_starts_ = next_configurations(rec);
  }
  next_parents_.clear();
  for (const auto& s : rec.spawns) next_parents_.emplace_back(s.source);
  // A reduced shard cannot give back the chosen frames: store the starts in full (the config
  // allows a reduced policy only with spawns from this iteration, docs/file-formats.md).
  if (record_policy_.reduces()) {
    for (std::size_t k = 0; k < next_starts_.size(); ++k) {
      rec.spawn_starts.push_back(
          {static_cast<std::int64_t>(k), next_starts_[k].positions, {}, next_starts_[k].box});
    }
  }

  // Coverage on the grid the spawner used, then the resolution ladder (which may refine it).
  rec.cumulative_frames = tracker_->coverage().frames();
  rec.occupied_bins = tracker_->coverage().occupied();
  rec.total_bins = tracker_->grid().total_bins();
  rec.n_bins = tracker_->grid().n_bins();
  if (resolution_.observe(rec.occupied_bins).bumped) {
    tracker_->regrid(resolution_.n_bins(), history_);
    spawner_->reset_memory();
  }
  msm_->start(iteration, history_);  // overlapped: runs during the next iteration's MD
  rec.state = state_json();
  rec.runner_s = runner_s;
  rec.analysis_s = seconds_since(t_analysis);
  const auto t_commit = Clock::now();
  store_->commit(rec);
  const double commit_s = seconds_since(t_commit);
  core::crash_point("after-commit", iteration);

  store::IterationSummary summary;
  summary.iteration = iteration;
  summary.successful_walkers = static_cast<std::int64_t>(spans.size());
  summary.failed_walkers = static_cast<std::int64_t>(results.size() - spans.size());
  summary.frames = rec.n_frames();
  summary.cumulative_frames = rec.cumulative_frames;
  summary.occupied_bins = rec.occupied_bins;
  summary.total_bins = rec.total_bins;
  summary.n_bins = rec.n_bins;
  summary.runner_s = runner_s;
  summary.analysis_s = seconds_since(t_analysis);  // output.log includes the commit itself
  if (msm_->enabled()) {
    summary.msm_build_s = msm_built ? msm_built->build_s : 0.0;
    summary.msm_wait_s = msm_wait_s;
  }
  for (const auto& s : rec.spawns) summary.spawn_pool_indices.push_back(s.pool_index);
  log_->append(summary);

  iteration_seconds_.push_back(seconds_since(t_start));
  const std::size_t recent = std::min<std::size_t>(iteration_seconds_.size(), 5);
  const double mean =
      std::accumulate(iteration_seconds_.end() - static_cast<std::ptrdiff_t>(recent),
                      iteration_seconds_.end(), 0.0) /
      static_cast<double>(recent);

  IterationReport report;
  report.target_iterations = options_.target_iterations;
  report.walkers = static_cast<std::int64_t>(results.size());
  report.n_bins = resolution_.n_bins();
  report.eta_s = mean * static_cast<double>(options_.target_iterations - iteration - 1);
  report.commit_s = commit_s;
  report.summary = std::move(summary);
  return report;
}

}  // namespace trails::campaign
