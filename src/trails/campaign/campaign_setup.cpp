// Setup half of the campaign driver: new run, resume, state restore, banner, outcome file.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cstdlib>
#include <string_view>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>

#include <fmt/format.h>

#include "trails/campaign/campaign_driver.h"
#include "trails/campaign/preflight.h"
#include "trails/campaign/projection_factory.h"
#include "trails/campaign/record_policy.h"
#include "trails/core/error.h"
#include "trails/core/fs.h"
#include "trails/core/python.h"
#include "trails/core/rng.h"
#include "trails/core/signals.h"
#include "trails/engines/registry.h"
#include "trails/exec/mpi_executor.h"
#include "trails/exec/process_executor.h"
#include "trails/spawners/density_spawner.h"
#include "trails/spawners/fps_spawner.h"
#include "trails/spawners/lof_spawner.h"
#include "trails/spawners/msm_spawner.h"
#include "trails/spawners/voronoi_spawner.h"
#include "trails/trajio/trajectory.h"

namespace trails::campaign {
namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

spawners::DensityOptions density_options(const config::CampaignConfig& c) {
  spawners::DensityOptions o;
  o.hard = c.spawning.spawn_type == config::SpawnType::Hard;
  o.recent_window = c.spawning.recent_density_window;
  if (c.spawning.search_mode == config::SearchMode::Target) o.target = c.spawning.target;
  return o;
}

// The campaign's executor (docs/execution.md), with a whole iteration in flight: a pool of
// `trails worker` processes (this same program) with execution.persistent_workers, else
// serial or the thread pool by spawning.max_workers.
}  // namespace

// execution.persistent_workers: one `trails worker` process per slot (the device plan's slots,
// or spawning.max_workers unbound ones), a whole iteration in flight.
std::unique_ptr<exec::Executor> make_worker_executor(const config::CampaignConfig& c,
                                                     const exec::DevicePlan& plan) {
  const auto bound = static_cast<std::size_t>(c.spawning.walker);
  exec::WorkerOptions workers;
  workers.argv = {std::filesystem::read_symlink("/proc/self/exe").string(), "worker"};
  workers.engine_setup = engines::worker_engine_setup(c.engine_spec(), c.outdir);
  if (c.execution.walker_timeout) {
    workers.walker_timeout = std::chrono::milliseconds(
        static_cast<std::int64_t>(std::ceil(*c.execution.walker_timeout * 1000.0)));
  }
  if (!plan.devices.empty())
    return exec::make_process_executor(workers, exec::slots_for(plan), bound);
  return exec::make_process_executor(workers, c.spawning.max_workers, bound);
}

// execution.backend: mpi: the worker ranks of this MPI job, one slot each (exec::mpi_slots),
// spawning.max_workers unused. `trails run` made the world and refused a launch without ranks.
std::unique_ptr<exec::Executor> make_mpi_worker_executor(const config::CampaignConfig& c,
                                                         const exec::DevicePlan& plan,
                                                         const exec::ExecutionOptions& keys) {
  exec::MpiWorld* world = exec::MpiWorld::current();
  if (world == nullptr) {
    throw core::ConfigError(c.config_file.string() +
                            ": execution.backend: mpi runs under an MPI launcher; start it as "
                            "mpirun -n K trails run CONFIG (K >= 2)");
  }
  exec::WorkerOptions workers;
  workers.engine_setup = engines::worker_engine_setup(c.engine_spec(), c.outdir);
  return exec::make_mpi_executor(*world, workers, exec::mpi_slots(world->hosts(), plan, keys),
                                 static_cast<std::size_t>(c.spawning.walker));
}

namespace {

// The one table of spawning schemes (spawning.spawn_scheme, checked by config/).
std::unique_ptr<spawners::Spawner> make_spawner(const config::CampaignConfig& c) {
  std::optional<std::vector<double>> target;
  if (c.spawning.search_mode == config::SearchMode::Target) target = c.spawning.target;
  const std::string& scheme = c.spawning.spawn_scheme;
  if (scheme == "msm") {
    return std::make_unique<spawners::MsmSpawner>(spawners::MsmSpawnerOptions{
        c.msm.spawn_alpha, c.msm.spawn_leverage, c.msm.spawn_uncertainty,
        c.spawning.voronoi_clusters, c.random_seed, target});
  }
  if (scheme == "voronoi") {
    return std::make_unique<spawners::VoronoiSpawner>(
        spawners::VoronoiOptions{c.spawning.voronoi_clusters, c.spawning.voronoi_periodic, target});
  }
  if (scheme == "lof") {
    return std::make_unique<spawners::LofSpawner>(
        spawners::LofOptions{c.spawning.lof_neighbors, target});
  }
  if (scheme == "fps") return std::make_unique<spawners::FpsSpawner>(spawners::FpsOptions{target});
  TRAILS_CHECK(scheme == "density", "spawn_scheme admitted by config/");
  return std::make_unique<spawners::DensitySpawner>(density_options(c));
}

// A spawner with cells of its own (Voronoi) has the resolution ladder climb them, capped by
// spawning.voronoi_max_clusters (compat:resolution-ladder); others leave it to the grid.
std::optional<binning::ResolutionController::CellLadder> cell_ladder(
    const spawners::Spawner& spawner, const config::CampaignConfig& c) {
  if (const auto cells = spawner.cells()) {
    return binning::ResolutionController::CellLadder{*cells, c.spawning.voronoi_max_clusters};
  }
  return std::nullopt;
}

// The outermost ancestor of `dir` (or dir itself) that does not exist yet: what creating `dir`
// would add. Empty when `dir` exists.
std::filesystem::path outermost_missing(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::path missing;
  for (auto p = dir; !p.empty() && !std::filesystem::exists(p, ec); p = p.parent_path()) {
    missing = p;
    if (p == p.parent_path()) break;
  }
  return missing;
}

std::string another_run(const std::filesystem::path& outdir) {
  return "another trails process is running a campaign in " + outdir.string() +
         "; wait for it to finish (nothing was changed)";
}

// One exclusive run per directory: flock on the ledger (SQLite uses fcntl locks, which are
// independent of flock, so this never interferes with the database).
int lock_run_directory(const std::filesystem::path& outdir) {
  const auto ledger = store::RunStore::ledger_path(outdir);
  int fd = ::open(ledger.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw core::StoreError("cannot open " + ledger.string() + " to lock it");
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    throw core::UsageError(another_run(outdir));
  }
  return fd;
}

// Exclusive flock on the run directory itself, taken before anything is written into it, so of
// concurrent starts exactly one proceeds (docs/reliability.md). Creates the directory when
// missing (the caller removes what it created if setup fails). Returns the locked fd.
int lock_outdir(const std::filesystem::path& outdir) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::error_code ec;
    std::filesystem::create_directories(outdir, ec);
    if (ec) {
      throw core::InputError("cannot create the run directory " + outdir.string() + ": " +
                             ec.message());
    }
    const int fd = ::open(outdir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) continue;  // removed meanwhile by a run whose setup failed: create it again
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK) throw core::UsageError(another_run(outdir));
      return -1;  // locks unsupported on this file system: proceed without the guard
    }
    // A loser may lock a directory the winner removed after a failed setup: lock the one there.
    struct stat held {
    }, now{};
    if (::fstat(fd, &held) == 0 && ::stat(outdir.c_str(), &now) == 0 && held.st_dev == now.st_dev &&
        held.st_ino == now.st_ino) {
      return fd;
    }
    ::close(fd);
  }
  throw core::UsageError(another_run(outdir));
}

bool msm_overlap_enabled(const RunOptions& options) {
  const char* env = std::getenv("TRAILS_MSM_OVERLAP");
  return options.overlap_msm && !(env != nullptr && std::string_view(env) == "0");
}

}  // namespace

CampaignDriver::CampaignDriver(const config::CampaignConfig& config, const RunOptions& options,
                               ProgressSink& progress)
    : config_(config),
      options_(options),
      progress_(progress),
      history_(config.cv_dimension()),
      spawner_(make_spawner(config)),
      resolution_(config.n_bins, config.spawning.resolution_max_bins,
                  config.spawning.resolution_check_patience, config.spawning.convergence_patience,
                  cell_ladder(*spawner_, config)),
      msm_(std::make_unique<msm::MsmStage>(config.msm, config.random_seed, config.cv_dimension(),
                                           msm_overlap_enabled(options))) {}

CampaignDriver::~CampaignDriver() {
  if (lock_fd_ >= 0) ::close(lock_fd_);
  if (dir_lock_fd_ >= 0) ::close(dir_lock_fd_);
}

CampaignOutcome CampaignDriver::run() {
  // An existing directory is locked first (that creates nothing), so a run started while
  // another holds it hears so rather than what the other has written meanwhile.
  std::error_code ec;
  if (std::filesystem::is_directory(config_.outdir, ec)) dir_lock_fd_ = lock_outdir(config_.outdir);
  preflight(config_, options_.resume);  // nothing is created for a bad configuration
  // OpenMM preparation writes prepared/ into the run directory (and creates its missing
  // parents); bad CVs, force fields or seed trajectories must leave none of that behind.
  const std::filesystem::path created = outermost_missing(config_.outdir);
  if (dir_lock_fd_ < 0) dir_lock_fd_ = lock_outdir(config_.outdir);
  // Under the lock, again: a run that held it before may have filled the directory since.
  if (!options_.resume && inspect_run_dir(config_.outdir) != RunDirState::Empty) {
    preflight(config_, false);
  }
  try {
    return run_locked();
  } catch (const core::Interrupted& e) {
    const bool had_store = store_.has_value();
    abandon_uncommitted(created);
    throw interrupted(e.signal(), had_store && !store_);
  } catch (core::Error& e) {
    if (abandon_uncommitted(created)) {
      e.with_context("nothing was kept: the run stopped before its first commit and " +
                     config_.outdir.string() +
                     " was left as it was before; fix the cause and run the same command again");
    }
    throw;
  } catch (...) {
    abandon_uncommitted(created);
    throw;
  }
}

// Before its first commit a fresh run has nothing worth keeping: whatever stops it (a failure
// or a stop signal) removes what it created, so that the same command can simply be run again
// (docs/reliability.md, "A run that fails before its first commit"). A resumed store, or one
// with a committed iteration, is kept. Returns whether anything was removed.
bool CampaignDriver::abandon_uncommitted(const std::filesystem::path& created) {
  if (options_.resume || (store_ && store_->last_committed())) return false;
  executor_.reset();  // no worker still writes into the directory
  log_.reset();
  store_.reset();
  if (lock_fd_ >= 0) ::close(lock_fd_);
  lock_fd_ = -1;
  std::error_code ec;
  if (!created.empty()) return std::filesystem::remove_all(created, ec) > 0;
  // The directory existed, empty or with what an interrupted start leaves (preflight.h): all of
  // its entries are this run's.
  bool removed = false;
  for (const auto& entry : std::filesystem::directory_iterator(config_.outdir, ec)) {
    removed = std::filesystem::remove_all(entry.path(), ec) > 0 || removed;
  }
  return removed;
}

core::Interrupted CampaignDriver::interrupted(int signal, bool abandoned) const {
  const std::string how = "interrupted by " + core::signal_name(signal);
  const auto last = store_ ? store_->last_committed() : std::nullopt;
  if (!last) {
    if (store_) {  // a resumed store without a committed iteration stays as it was
      return core::Interrupted(signal,
                               how + " before iteration 0 was committed; " +
                                   config_.outdir.string() + " holds no iteration yet",
                               true);
    }
    return core::Interrupted(
        signal,
        how + " before iteration 0 was committed; nothing was " + (abandoned ? "kept" : "written"),
        false);
  }
  return core::Interrupted(
      signal,
      fmt::format("{}: {} iteration(s) committed in {} (the last: iteration {}); no iteration "
                  "was started after the signal",
                  how, *last + 1, config_.outdir.string(), *last),
      true);
}

CampaignOutcome CampaignDriver::run_locked() {
  // A failure from here to the first commit removes what the run created (run()).
  plan_devices();  // a device beyond CUDA_VISIBLE_DEVICES fails before anything exists
  engine_ = engines::make_engine(config_.engine_spec(), config_.outdir);
  projection_ = make_projection(config_, *engine_);
  record_policy_ = make_record_policy(config_, *engine_);
  load_initial_trajectory();  // read and checked before anything is written
  core::throw_if_stop_requested();
  if (config_.learned_space()) {
    make_learned_space();
  } else {
    TRAILS_CHECK(projection_->dimension() == config_.cv_dimension(),
                 "the projection's dimension must match n_bins (checked by the config)");
  }
  if (options_.resume) {
    resume();
  } else {
    start_new();
  }
  start_executor();
  elements_ = compose_iteration();
  progress_.started(banner());

  CampaignOutcome outcome;
  outcome.requested_iterations = options_.target_iterations;
  for (std::int64_t n = next_iteration_;
       n < options_.target_iterations && !resolution_.converged() && !msm_->converged(); ++n) {
    core::throw_if_stop_requested();  // between iterations: the last one is committed
    progress_.iteration(run_iteration(n));
    ++outcome.ran_now;
  }
  join_msm(nullptr);  // the last build: recorded now (a later --resume recomputes the same bits)
  outcome.converged = resolution_.converged() || msm_->converged();
  outcome.reason = resolution_.converged() ? resolution_.reason() : msm_->reason();
  const auto last = store_->last_committed();
  outcome.completed_iterations = last ? *last + 1 : 0;
  write_outcome(outcome);
  store::remove_progress(config_.outdir);  // the last iteration is committed
  progress_.finished(outcome);
  return outcome;
}

store::RunMeta CampaignDriver::run_meta() const {
  store::RunMeta meta;
  meta.trails_version = TRAILS_VERSION;
  meta.config = config_.result_relevant_json();
  meta.config_digest = config::digest_of(meta.config);
  meta.effective_config = config_.effective_json();
  meta.engine_system = engine_->system().to_json();
  meta.engine_system["engine"] = engine_->name();
  // The names of the stored CV columns (trails export --cv-names, the Python reader): a learned
  // space's projections, else the projection's own column names (docs/analysis.md#exports).
  std::vector<std::string> names;
  if (config_.learned_space()) {
    for (int k = 0; k < config_.cv_dimension(); ++k) {
      names.push_back(fmt::format("{}_{}", config_.space_mode, k));
    }
  } else {
    names = projection_->column_names();
  }
  meta.engine_system["cv_names"] = names;
  meta.engine_system["execution"] = execution_record();  // devices, MPS, MIG (docs/execution.md)
  meta.created_at = utc_now();
  return meta;
}

void CampaignDriver::start_new() {
  store_.emplace(store::RunStore::create(config_.outdir, run_meta(), dir_lock_fd_));
  lock_fd_ = lock_run_directory(config_.outdir);
  if (!space_) {  // a learned space gets its grid at the first fit (iteration 0)
    tracker_.emplace(binning::UniformGrid(config_.n_bins, config_.min_values, config_.max_values),
                     config_.spawning.history_window);
  }

  set_initial_walkers();
  log_ = std::make_unique<RunLog>(config_.outdir / "output.log", config_);
  log_->rewrite({});
}

void CampaignDriver::load_initial_trajectory() {
  initial_frames_.clear();
  initial_seeding_.clear();
  // The engine-dependent checks `trails check` makes too (preflight.h), before any write.
  check_memory(config_, *engine_);
  const auto read = read_initial_trajectory(config_, *engine_);
  if (!read) return;
  const auto& path = config_.system.initial_trajectory;
  const auto& traj = *read;
  const auto n = static_cast<std::int64_t>(traj.frames.size());
  const int walkers = config_.spawning.walker;
  std::vector<std::int64_t> chosen;
  if (config_.system.project_file && !config_.learned_space() && n > walkers) {
    // compat:initial-trajectory: the project file gives the frames' CVs and the spawner picks W of
    // them.
    chosen = spawn_from_initial_trajectory(traj);
    initial_seeding_ = fmt::format(
        "{} of {} frames of {}, picked by the {} spawner over extract_cvs", walkers, n,
        path->filename().string(),
        config_.spawning.spawn_type == config::SpawnType::Hard ? "hard density" : "soft density");
  } else {
    // Trails-MD: linspace over the frames when there are enough, else random replication.
    auto rng = core::Rng::stream(config_.random_seed, "initial_trajectory");
    for (int w = 0; w < walkers; ++w) {
      chosen.push_back(
          n >= walkers ? (walkers == 1 ? 0 : static_cast<std::int64_t>(w) * (n - 1) / (walkers - 1))
                       : static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n))));
    }
    initial_seeding_ =
        fmt::format("{} of {} frames of {}, {}", walkers, n, path->filename().string(),
                    n >= walkers ? "evenly spaced" : "drawn at random");
  }
  std::string list;
  for (const auto f : chosen) list += fmt::format("{}{}", list.empty() ? "" : ", ", f);
  initial_seeding_ += " (frames " + list + ")";
  for (const auto f : chosen) {
    const auto& frame = traj.frames[static_cast<std::size_t>(f)];
    engines::Configuration c = engine_->default_start();
    c.positions = frame.positions_nm;
    c.velocities.clear();
    if (frame.box) {
      c.box.assign(frame.box->begin(), frame.box->end());
    }
    initial_frames_.push_back(std::move(c));
  }
}

std::vector<std::int64_t> CampaignDriver::spawn_from_initial_trajectory(
    const trajio::Trajectory& traj) const {
  const auto n = static_cast<std::int64_t>(traj.frames.size());
  std::vector<double> positions, boxes;
  const bool periodic = std::all_of(traj.frames.begin(), traj.frames.end(),
                                    [](const auto& f) { return f.box.has_value(); });
  for (const auto& f : traj.frames) {
    positions.insert(positions.end(), f.positions_nm.begin(), f.positions_nm.end());
    if (periodic) boxes.insert(boxes.end(), f.box->begin(), f.box->end());
  }
  // One trajectory, "iteration -1" (Trails-MD's history[-1]), through the campaign's projection.
  const features::WalkerFrames all{0, n};
  std::vector<double> cvs;
  projection_->project_iteration(-1, std::span<const features::WalkerFrames>(&all, 1), positions, n,
                                 boxes, cvs);
  features::FrameHistory frames(config_.cv_dimension());
  const features::FrameHistory::WalkerSpan span{0, n};
  frames.append(-1, std::span<const features::FrameHistory::WalkerSpan>(&span, 1), cvs);
  CoverageTracker bins(binning::UniformGrid(config_.n_bins, config_.min_values, config_.max_values),
                       std::nullopt);
  bins.add_latest(frames);
  spawners::DensitySpawner spawner(density_options(config_));
  core::Rng rng = core::Rng::stream(config_.random_seed, "initial_trajectory_spawn");
  return spawner.choose(bins.pool(), bins.grid(), config_.spawning.walker, rng);
}

void CampaignDriver::set_initial_walkers() {
  const int walkers = config_.spawning.walker;
  const auto& start = config_.system.start;
  next_starts_.clear();
  for (int w = 0; w < walkers; ++w) {
    engines::Configuration c = engine_->default_start();
    if (!start.empty()) c.positions = start.size() == 1 ? start[0] : start[w];
    if (!initial_frames_.empty()) c = initial_frames_[static_cast<std::size_t>(w)];
    next_starts_.push_back(std::move(c));
  }
  next_parents_.assign(walkers, std::nullopt);
  next_iteration_ = 0;
}

void CampaignDriver::resume() {
  lock_fd_ = lock_run_directory(config_.outdir);
  store_.emplace(
      store::RunStore::open(config_.outdir, store::RunStore::Mode::ReadWrite, dir_lock_fd_));
  // Also in preflight(), which check --resume runs; the keys that may change are recorded with
  // the iteration they take effect in before anything else is written.
  resume_changes_ = check_resume_config(config_, *store_);
  if (!resume_changes_.empty()) store_->record_config_changes(resume_changes_, run_meta());

  const auto records = store_->load_iterations();
  if (records.empty()) {  // created, but stopped before iteration 0 was committed
    if (!space_) {
      tracker_.emplace(binning::UniformGrid(config_.n_bins, config_.min_values, config_.max_values),
                       config_.spawning.history_window);
    }
    set_initial_walkers();
  } else {
    // The same state the last commit wrote, each element's blob checked against its version.
    const auto state = store_->load_state(records.back().iteration, state_versions());
    restore_state(state);
    if (space_) {
      resume_learned_space(records);  // history in the current learned space, from the shards
      std::int64_t first = 0;         // the replayed history holds every committed frame, in order
      for (const auto& rec : records) {
        msm_->observe(first, ok_spans(rec));
        first += rec.n_frames();
      }
      msm_->set_space_version(space_->space_version());
    } else {
      tracker_.emplace(
          binning::UniformGrid(resolution_.n_bins(), config_.min_values, config_.max_values),
          config_.spawning.history_window);
      for (const auto& rec : records) {
        const auto spans = ok_spans(rec);
        const auto first = history_.append(rec.iteration, spans, rec.cvs);
        tracker_->add_latest(history_);
        msm_->observe(first, spans);
      }
    }
    if (state.contains("msm")) msm_->restore(state.at("msm"), history_);
    const auto& last = records.back();
    next_starts_ = resume_starts(last);
    next_parents_.clear();
    for (const auto& s : last.spawns) next_parents_.emplace_back(s.source);
    next_iteration_ = last.iteration + 1;
  }
  log_ = std::make_unique<RunLog>(config_.outdir / "output.log", config_);
  log_->rewrite(store_->summaries());
}

void CampaignDriver::restore_state(const nlohmann::json& state) {
  resolution_.restore(state.at("resolution"));
  spawner_->restore(state.at("spawner"));
  if (space_) space_->restore(state.at("space"));
}

const std::map<std::string, int>& CampaignDriver::state_versions() {
  static const std::map<std::string, int> versions = {
      {"spawner", 1}, {"resolution", 1}, {"target_iterations", 1}, {"space", 1}, {"msm", 1}};
  return versions;
}

nlohmann::json CampaignDriver::state_json() const {
  nlohmann::json state = {{"spawner", spawner_->state()},
                          {"resolution", resolution_.state()},
                          {"target_iterations", options_.target_iterations}};
  if (space_) state["space"] = space_->state();
  if (msm_->enabled()) state["msm"] = msm_->state();
  return state;
}

std::optional<msm::MsmBuild> CampaignDriver::join_msm(double* wait_s) {
  auto built = msm_->join(wait_s);
  if (built) record_msm_build(*built);
  return built;
}

std::vector<features::FrameHistory::WalkerSpan> CampaignDriver::ok_spans(
    const store::IterationRecord& rec) {
  std::vector<features::FrameHistory::WalkerSpan> spans;
  for (const auto& w : rec.walkers) {
    if (w.ok) spans.push_back({w.walker, w.n_frames});
  }
  return spans;
}

void CampaignDriver::record_msm_build(const msm::MsmBuild& built) {
  store_->commit_msm_build({built.iteration, built.build_s, built.to_json()});
}

std::vector<std::string> CampaignDriver::banner() const {
  const auto& s = config_.spawning;
  std::vector<std::string> lines;
  lines.push_back(fmt::format("Trails {} — adaptive campaign", TRAILS_VERSION));
  lines.push_back(fmt::format("  config      {}", config_.config_file.string()));
  lines.push_back(fmt::format("  outdir      {}", config_.outdir.string()));
  lines.push_back("  engine      " + engine_->describe());
  if (engine_->system().molecular) {
    std::string cvs;
    for (const auto& n : projection_->column_names()) cvs += (cvs.empty() ? "" : ", ") + n;
    lines.push_back(fmt::format("  {}{}", space_ ? "physical cvs " : "cvs         ", cvs));
    lines.push_back("  python      " + core::resolve_python(config_.engine.python).describe());
  }
  if (space_) {
    lines.push_back(fmt::format("  features    {} ({} columns{})", space_->feature_type(),
                                space_->n_features(),
                                config_.learned.selection.enabled ? ", VAMP-2 selection" : ""));
  }
  if (!initial_seeding_.empty()) lines.push_back("  seeds       " + initial_seeding_);
  lines.push_back(fmt::format(
      "  walkers     {} × {} steps, stride {} ({} frames each), {} worker(s){}", s.walker, s.step,
      s.stride, s.frames_per_walker(), executor_ ? executor_->workers() : s.max_workers,
      config_.execution.backend == "mpi"     ? " (MPI ranks)"
      : config_.execution.persistent_workers ? " (persistent processes)"
                                             : ""));
  if (const auto devices = devices_banner()) lines.push_back("  placement   " + *devices);
  lines.push_back(fmt::format("  spawner     {} ({}), space {}, bins {}", s.spawn_scheme,
                              s.spawn_type == config::SpawnType::Hard ? "hard" : "soft",
                              config_.space_mode, nlohmann::json(resolution_.n_bins()).dump()));
  // Numbered from 0, as in the store and in every message (docs/reliability.md).
  lines.push_back(fmt::format("  iterations  {} to {} (target {}{})", next_iteration_,
                              options_.target_iterations - 1, options_.target_iterations,
                              options_.resume ? ", resumed" : ""));
  // Keys accepted without effect (docs/trails-md-compatibility.md#compat-ignored-keys).
  for (const auto& note : config_.notes) lines.push_back("  note        " + note);
  for (const auto& c : resume_changes_) {
    lines.push_back(fmt::format("  changed     {} {} → {} from iteration {}", c.key,
                                c.before.dump(), c.after.dump(), c.iteration));
  }
  return lines;
}

void CampaignDriver::write_outcome(const CampaignOutcome& outcome) const {
  const nlohmann::json j = {
      {"converged", outcome.converged},
      {"convergence_reason",
       outcome.converged ? nlohmann::json(outcome.reason) : nlohmann::json(nullptr)},
      {"completed_iterations", outcome.completed_iterations},
      {"requested_iterations", outcome.requested_iterations}};
  core::write_file_atomic(config_.outdir / "convergence.json", j.dump(2) + "\n");
}

}  // namespace trails::campaign
