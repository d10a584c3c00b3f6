// One iteration of the campaign driver as an ordered list of elements (docs/architecture.md,
// "One iteration"), in Trails-MD's order (compat:iteration-order): segments → collect → fixed-CV
// projection → [learned space] → history and bins → [MSM in the new space] → spawn → starts →
// coverage and resolution → MSM build started → atomic commit → log. compose_iteration() picks
// each element once, at setup, from what the run is; run_iteration() runs them top to bottom. The
// stateful elements are objects of their own (docs/architecture.md, "Campaign elements"); the
// steps here keep no state.
#include <algorithm>
#include <numeric>

#include <spdlog/spdlog.h>

#include "trails/campaign/campaign_driver.h"
#include "trails/campaign/checkpoint.h"
#include "trails/campaign/partial_iteration.h"
#include "trails/core/crash_point.h"
#include "trails/core/error.h"
#include "trails/core/signals.h"
#include "trails/store/position_grid.h"

namespace trails::campaign {

double seconds_since(IterationState::Clock::time_point t0) {
  return std::chrono::duration<double>(IterationState::Clock::now() - t0).count();
}

IterationElement* CampaignDriver::step(std::string name,
                                       void (CampaignDriver::*run)(IterationState&)) {
  steps_.push_back(std::make_unique<StepElement>(
      std::move(name), [this, run](IterationState& it) { (this->*run)(it); }));
  return steps_.back().get();
}

void CampaignDriver::compose_iteration() {
  std::vector<const CheckpointClient*> clients(clients_.begin(), clients_.end());
  commit_ = std::make_unique<CommitElement>(std::move(clients), options_.target_iterations, *store_,
                                            config_.outdir);
  steps_.clear();
  auto& e = iteration_;
  e.clear();
  // A neural retrain prepared by the last iteration trains while this iteration's MD runs.
  if (space_) {
    steps_.push_back(std::make_unique<StepElement>(
        "space training", [this](IterationState& /*it*/) { space_->start_training(); }));
    e.push_back(steps_.back().get());
  }
  e.push_back(step("segments", &CampaignDriver::run_segments));
  e.push_back(step("collect", &CampaignDriver::collect_segments));
  e.push_back(step("project", &CampaignDriver::project_frames));
  if (space_) {
    e.push_back(space_.get());
    e.push_back(step("history", &CampaignDriver::extend_learned_history));
    e.push_back(step("msm space", &CampaignDriver::follow_space_in_msm));
  } else {
    e.push_back(step("history", &CampaignDriver::extend_history));
  }
  e.push_back(spawn_.get());
  e.push_back(starts_.get());
  e.push_back(coverage_.get());
  e.push_back(msm_.get());
  e.push_back(commit_.get());
  e.push_back(step("log", &CampaignDriver::log_iteration));
}

IterationReport CampaignDriver::run_iteration(std::int64_t iteration) {
  IterationState it;
  it.iteration = iteration;
  it.t_start = IterationState::Clock::now();
  for (auto* element : iteration_) {
    const auto t0 = IterationState::Clock::now();
    element->run(it);
    spdlog::debug("iteration {}: {} {:.4f} s", iteration, element->name(), seconds_since(t0));
  }
  return std::move(it.report);
}

void CampaignDriver::run_segments(IterationState& it) {
  it.tasks = starts_->make_tasks(it.iteration);
  // The shard's positions are written as results arrive, in walker order whatever the order
  // of completion (so the bytes are too): a result waits only for the walkers before it.
  store::ShardLayout layout;
  layout.n_atoms = engine_->n_atoms();
  layout.spatial_dim = engine_->spatial_dim();
  layout.policy = record_policy_;
  layout.expected_states = static_cast<std::int64_t>(it.tasks.size());
  layout.expected_frames =
      layout.expected_states * (config_.spawning.step / config_.spawning.stride);
  layout.cv_dim = history_.cv_dim();
  it.shard_layout = layout;
  it.shard.emplace(store_->begin_shard(it.iteration, layout));
  // Walkers that finished before a stop signal interrupted this iteration are not run again
  // (partial_iteration.h): their kept results join the others in walker order.
  auto kept = load_partial(config_.outdir, it.iteration, it.tasks);
  std::vector<engines::SegmentTask> to_run;
  for (const auto& t : it.tasks) {
    if (!kept.contains(t.walker)) to_run.push_back(t);
  }
  if (!kept.empty()) {
    spdlog::info("iteration {}: {} walker(s) finished before the run was stopped; not run again",
                 it.iteration, kept.size());
  }
  const std::size_t n = it.tasks.size();
  it.results.assign(n, {});
  std::vector<char> done(n, 0), from_partial(n, 0);
  std::size_t next = 0;
  // The shard's positions are appended in walker order, as soon as a result and every result
  // before it are in (exec::run_in_order's contract), whatever the order of completion.
  const auto advance = [&] {
    for (; next < n && done[next] != 0; ++next) {
      core::crash_point("md", it.iteration);  // tests: SIGKILL while walkers are still running
      fail_if_off_grid(it.results[next]);
      if (it.results[next].ok()) it.shard->append(it.results[next].frames);
    }
  };
  // Progress counts results as they arrive (completion order), not in walker order.
  int n_done = 0, failed = 0;
  for (auto& [walker, r] : kept) {
    const auto w = static_cast<std::size_t>(walker);
    it.results[w] = std::move(r);
    done[w] = from_partial[w] = 1;
    ++n_done;
  }
  report_walkers(it.iteration, n_done, 0, it.t_start);
  advance();
  exec::run_batch(*executor_, to_run, [&](engines::SegmentResult&& r) {
    const auto w = static_cast<std::size_t>(r.task_id);
    TRAILS_CHECK(w < n && done[w] == 0, "one result per walker of this iteration");
    ++n_done;
    failed += r.ok() ? 0 : 1;
    it.results[w] = std::move(r);
    done[w] = 1;
    report_walkers(it.iteration, n_done, failed, it.t_start);
    advance();
  });
  // A stop signal ended the walkers still running: keep the finished ones for --resume (unless
  // the run is a fresh one with nothing committed, which is removed whole) and stop uncommitted.
  if (const int signal = core::stop_signal(); signal != 0) {
    if (options_.resume || store_->last_committed()) {
      stopped_walkers_ =
          save_partial(config_.outdir, it.iteration, it.tasks, it.results, from_partial);
    }
    stopped_iteration_ = it.iteration;
    throw core::Interrupted(signal);
  }
  it.runner_s = seconds_since(it.t_start);
  it.t_analysis = IterationState::Clock::now();
}

void CampaignDriver::fail_if_off_grid(engines::SegmentResult& r) const {
  // A frame too far out for the position grid fails its walker only (docs/reliability.md).
  if (!record_policy_.quantised() || !r.ok()) return;
  if (const auto why = store::off_grid(r.frames, record_policy_.position_precision)) {
    r.status = engines::SegmentStatus::Failed;
    r.error = "a frame cannot be stored: " + *why + "; the walker's frames are not kept";
  }
}

void CampaignDriver::collect_segments(IterationState& it) {
  check_failures(it.iteration, it.results);
  // The MSM build of an earlier iteration ran during this MD; it is needed from here on.
  it.msm_built = msm_->join(&it.msm_wait_s);

  auto& rec = it.rec;
  rec.iteration = it.iteration;
  rec.cv_dim = history_.cv_dim();
  rec.n_atoms = engine_->n_atoms();
  rec.spatial_dim = engine_->spatial_dim();
  rec.stride = config_.spawning.stride;
  rec.dt = record_dt();
  rec.record_policy = record_policy_;
  rec.state_versions = campaign_state_versions();
  std::size_t frame_values = 0;
  for (const auto& r : it.results) frame_values += r.ok() ? r.frames.size() : 0;
  rec.positions.reserve(frame_values);
  const auto weights = spawn_->slot_weights(it.results.size());
  for (std::size_t w = 0; w < it.results.size(); ++w) {
    auto& r = it.results[w];
    store::WalkerRecord wr;
    wr.walker = static_cast<std::int64_t>(w);
    wr.seed = it.tasks[w].seed;
    wr.ok = r.ok();
    wr.error = r.error;
    wr.n_frames = r.ok() ? r.n_frames : 0;
    wr.parent = starts_->parent(w);
    wr.startup_s = r.startup_s;
    wr.integrate_s = r.integrate_s;
    wr.platform = r.platform;
    wr.device = r.device;
    wr.visible_devices = r.visible_devices;
    wr.host = r.host;
    // The weight a weighted spawner gave the slot; else every segment weighs the same
    // (docs/file-formats.md).
    wr.weight = weights.empty() ? 1.0 / static_cast<double>(it.results.size()) : weights[w];
    rec.walkers.push_back(wr);
    if (!r.ok()) continue;
    it.spans.push_back({wr.walker, r.n_frames});
    // On a position grid the frames in memory are the ones the shard gives back, so CVs,
    // features and restarts are the same bits in an uninterrupted and a resumed run.
    if (record_policy_.quantised())
      store::snap_to_grid(r.frames, record_policy_.position_precision);
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
}

void CampaignDriver::project_frames(IterationState& it) {
  // features::Projection into the fixed CV space (for built-in runs the identity: the
  // coordinates themselves).
  auto& rec = it.rec;
  const auto n_new =
      static_cast<std::int64_t>(rec.positions.size()) / std::max(1, rec.n_atoms * rec.spatial_dim);
  rec.cvs.reserve(static_cast<std::size_t>(n_new * projection_->dimension()));
  std::vector<features::WalkerFrames> walker_frames;
  for (const auto& s : it.spans) walker_frames.push_back({s.walker, s.n_frames});
  projection_->project_iteration(it.iteration, walker_frames, rec.positions, n_new, rec.boxes,
                                 rec.cvs);
  fail_non_finite_cvs(it);
}

void CampaignDriver::extend_history(IterationState& it) {
  it.first_frame = history_.append(it.iteration, it.spans, it.rec.cvs);
  coverage_->add_latest();
  msm_->observe(it.first_frame, it.spans);
}

void CampaignDriver::extend_learned_history(IterationState& it) {
  if (!space_->stage().retrained()) {
    extend_history(it);
    return;
  }
  space_->replay_history();          // every frame, this iteration's included, in the new space
  spawn_->spawner().reset_memory();  // old bin ids mean nothing in the new space
  it.first_frame = history_.frames() - it.rec.n_frames();
  msm_->observe(it.first_frame, it.spans);
}

void CampaignDriver::follow_space_in_msm(IterationState& it) {
  msm_->follow_space(it, space_->stage().space_version(), coverage_->explored_fraction());
}

void CampaignDriver::log_iteration(IterationState& it) {
  const auto& rec = it.rec;
  store::IterationSummary summary;
  summary.iteration = it.iteration;
  summary.successful_walkers = static_cast<std::int64_t>(it.spans.size());
  summary.failed_walkers = static_cast<std::int64_t>(it.results.size() - it.spans.size());
  summary.frames = rec.n_frames();
  summary.cumulative_frames = rec.cumulative_frames;
  summary.occupied_bins = rec.occupied_bins;
  summary.total_bins = rec.total_bins;
  summary.n_bins = rec.n_bins;
  summary.runner_s = it.runner_s;
  summary.analysis_s = seconds_since(it.t_analysis);  // output.log includes the commit itself
  if (msm_->stage().enabled()) {
    summary.msm_build_s = it.msm_built ? it.msm_built->build_s : 0.0;
    summary.msm_wait_s = it.msm_wait_s;
  }
  for (const auto& s : rec.spawns) summary.spawn_pool_indices.push_back(s.pool_index);
  summary.recycled_flux = rec.recycled_flux;
  summary.recycled_walkers = rec.recycled_walkers;
  log_->append(summary);

  iteration_seconds_.push_back(seconds_since(it.t_start));
  const std::size_t recent = std::min<std::size_t>(iteration_seconds_.size(), 5);
  const double mean =
      std::accumulate(iteration_seconds_.end() - static_cast<std::ptrdiff_t>(recent),
                      iteration_seconds_.end(), 0.0) /
      static_cast<double>(recent);

  auto& report = it.report;
  report.target_iterations = options_.target_iterations;
  report.walkers = static_cast<std::int64_t>(it.results.size());
  report.n_bins = coverage_->resolution().n_bins();
  report.eta_s = mean * static_cast<double>(options_.target_iterations - it.iteration - 1);
  report.commit_s = it.commit_s;
  report.summary = std::move(summary);
}

}  // namespace trails::campaign
