#include "trails/swarm/swarm_store.h"

#include <system_error>

#include <unistd.h>

#include <fmt/format.h>

#include "trails/config/config_digest.h"  // the run records' digest and changed keys
#include "trails/core/crash_point.h"
#include "trails/core/error.h"
#include "trails/store/run_directory_lock.h"

namespace trails::swarm {
namespace {

namespace fs = std::filesystem;

store::WalkerRecord walker_record(std::int64_t walker, std::uint64_t seed,
                                  const engines::SegmentResult& r, bool has_frame,
                                  const std::optional<core::FrameKey>& parent, double weight) {
  store::WalkerRecord w;
  w.walker = walker;
  w.seed = seed;
  w.ok = r.ok();
  w.error = r.error;
  w.n_frames = has_frame ? 1 : 0;
  w.parent = parent;
  w.startup_s = r.startup_s;
  w.integrate_s = r.integrate_s;
  w.platform = r.platform;
  w.device = r.device;
  w.visible_devices = r.visible_devices;
  w.host = r.host;
  w.weight = weight;
  return w;
}

}  // namespace

SwarmStore::SwarmStore(const config::SwarmConfig& config, bool resume)
    : config_(config), resume_(resume) {
  const fs::path& dir = config.workdir;
  std::error_code ec;
  // One run per directory, as for campaigns (store/run_directory_lock.h): the lock comes before
  // anything is written, and what was found is checked again under it, so of two runs started
  // at once one proceeds and the other is told that another run holds the directory.
  if (resume && !store::RunStore::exists(dir)) {
    throw core::InputError(dir.string() +
                           " holds no swarm run to resume; run `trails swarm` without --resume");
  }
  const fs::path missing = store::outermost_missing(dir);
  lock_fd_ = store::lock_run_directory(dir);
  created_ = missing;
  if (resume) return;
  if (store::RunStore::exists(dir)) {
    release();
    throw core::InputError(dir.string() +
                           " already holds a run; continue it with `trails swarm --resume`, or "
                           "choose another workdir");
  }
  if (created_.empty() && !fs::is_empty(dir, ec)) {
    release();
    throw core::InputError(dir.string() +
                           " exists and is not empty; choose a new or empty workdir (nothing "
                           "was written)");
  }
}

void SwarmStore::release() {
  std::error_code ec;
  if (!created_.empty()) fs::remove_all(created_, ec);
  created_.clear();
  if (lock_fd_ >= 0) ::close(lock_fd_);
  lock_fd_ = -1;
}

SwarmStore::~SwarmStore() {
  store_.reset();
  if (committed_ || resume_) created_.clear();
  // A fresh run that never committed leaves nothing behind: the directories it created, or,
  // in a directory that existed empty, what it wrote there.
  if (!committed_ && !resume_ && created_.empty() && lock_fd_ >= 0) {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(config_.workdir, ec)) {
      fs::remove_all(entry.path(), ec);
    }
  }
  release();
}

std::int64_t SwarmStore::committed_cycles() const {
  if (!store_) return 0;
  const auto last = store_->last_committed();
  return last ? *last + 1 : 0;
}

void SwarmStore::open(const engines::Engine& engine, const std::vector<std::string>& cv_names,
                      const nlohmann::json& cv_model) {
  dt_ = engine.system().dt;
  store::RunMeta meta;
  meta.trails_version = TRAILS_VERSION;
  meta.config = config_.result_relevant_json();
  if (!cv_model.is_null()) meta.config["pathgennie"]["projection"]["stored_model"] = cv_model;
  meta.config_digest = config::digest_of(meta.config);
  meta.effective_config = config_.effective_json();
  meta.engine_system = engine.system().to_json();
  meta.engine_system["engine"] = engine.name();
  meta.engine_system["cv_names"] = cv_names;
  if (!resume_) {
    store_.emplace(store::RunStore::create(config_.workdir, meta, lock_fd_));
    return;
  }
  store_.emplace(
      store::RunStore::open(config_.workdir, store::RunStore::Mode::ReadWrite, lock_fd_));
  const store::RunMeta& stored = store_->meta();
  if (!stored.config.contains("pathgennie")) {
    throw core::InputError(config_.workdir.string() +
                           " holds a campaign, not a swarm run; continue it with `trails run "
                           "--resume`");
  }
  if (stored.config_digest != meta.config_digest) {
    std::string keys;
    for (const auto& k : config::keys_changed(stored.config, meta.config)) {
      keys += (keys.empty() ? "" : ", ") + k;
    }
    // A learned CV whose run has moved on (docs/swarm.md, "A learned model as the CV").
    const nlohmann::json::json_pointer at("/pathgennie/projection/stored_model");
    const nlohmann::json began =
        stored.config.contains(at) ? stored.config.at(at) : nlohmann::json();
    const nlohmann::json now = meta.config.contains(at) ? meta.config.at(at) : nlohmann::json();
    std::string hint;
    if (began.is_object() && began != now) {
      const auto iteration = began.value("iteration", std::int64_t{-1});
      hint = fmt::format(
          "; the swarm began with the model of iteration {} of {}: projection.iteration: {} "
          "continues with it",
          iteration, began.value("run", std::string()), iteration);
    }
    throw core::InputError(fmt::format(
        "{}: the configuration differs from the run in {} ({}); --resume continues the same "
        "swarm (only max_cycle, devices and workers_per_device may change): restore those keys "
        "or start a new run in another workdir{}",
        config_.config_file.string(), config_.workdir.string(), keys, hint));
  }
  const auto last = store_->last_committed();
  next_iteration_ = last ? *last + 1 : 0;
}

std::vector<store::CycleRecord> SwarmStore::history() const {
  if (!resume_) return {};
  return store::load_cycle_records(*store_);
}

engines::Configuration stored_anchor(const store::RunStore& store, const core::FrameKey& key,
                                     const engines::Configuration& layout) {
  const auto frames = store.load_frames(std::span<const core::FrameKey>(&key, 1));
  engines::Configuration c = layout;
  c.positions = frames.front().positions;
  c.box = frames.front().box;
  c.velocities.clear();
  return c;
}

engines::Configuration SwarmStore::anchor_state(const core::FrameKey& key,
                                                const engines::Configuration& layout) const {
  return stored_anchor(*store_, key, layout);
}

std::optional<core::FrameKey> SwarmStore::commit(FinishedCycle& f,
                                                 const std::optional<core::FrameKey>& start_key) {
  const std::int64_t iteration = next_iteration_;
  store::CycleRecord& rec = f.record;
  const auto n = static_cast<std::int64_t>(f.trials.size());
  std::optional<std::int64_t> anchor_walker;
  if (rec.outcome == store::CycleOutcome::Extended) anchor_walker = n;
  if (rec.outcome == store::CycleOutcome::Trial) anchor_walker = rec.chosen;
  rec.anchor =
      anchor_walker ? std::optional(core::FrameKey{iteration, *anchor_walker, 0}) : start_key;

  store::IterationRecord r;
  r.iteration = iteration;
  r.cv_dim = static_cast<int>(rec.anchor_cvs.size());
  const engines::SegmentResult& anchor_result =
      anchor_walker == n ? *f.tau2 : f.trials[static_cast<std::size_t>(rec.chosen)];
  r.n_atoms = anchor_result.n_atoms;
  r.spatial_dim = anchor_result.spatial_dim;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    r.walkers.push_back(walker_record(i, f.trial_seeds[k], f.trials[k], anchor_walker == i,
                                      start_key, rec.probabilities[k]));
  }
  if (f.tau2) {
    r.walkers.push_back(walker_record(n, f.tau2_seed, *f.tau2, anchor_walker == n, start_key, 1.0));
  }
  if (anchor_walker) {
    const std::size_t per_frame = static_cast<std::size_t>(anchor_result.n_atoms) *
                                  static_cast<std::size_t>(anchor_result.spatial_dim);
    const auto& frames = anchor_result.frames;
    r.positions.assign(frames.end() - static_cast<std::ptrdiff_t>(per_frame), frames.end());
    if (!anchor_result.frame_boxes.empty()) {
      r.boxes.assign(anchor_result.frame_boxes.end() - 9, anchor_result.frame_boxes.end());
    }
    r.cvs = rec.anchor_cvs;
  }
  if (rec.anchor) r.spawns.push_back(store::SpawnChoice{0, 0, *rec.anchor});
  r.stride = 1;
  r.dt = dt_;
  r.runner_s = rec.wall_s;
  r.state = nlohmann::json::object();
  // The cycle's own fields and the chain's carried state (FinishedCycle::state) in one record.
  nlohmann::json record = store::to_json(rec);
  if (f.state.contains(store::kCycleRecordKey)) record.update(f.state.at(store::kCycleRecordKey));
  r.state[store::kCycleRecordKey] = std::move(record);
  r.state_versions[store::kCycleRecordKey] = store::kCycleRecordVersion;
  store_->commit(r);
  committed_ = true;
  core::crash_point("after-commit", iteration);  // tests: SIGKILL with other trials in flight
  ++next_iteration_;
  return rec.anchor;
}

}  // namespace trails::swarm
