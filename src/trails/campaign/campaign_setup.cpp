// Setup half of the campaign driver: a new run under its directory lock, the run loop, what a
// failure or a stop signal leaves, the ledger's meta, the banner and the outcome file. The first
// walkers are in campaign_initial_walkers.cpp, resume in campaign_resume.cpp.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "trails/campaign/campaign_driver.h"
#include "trails/campaign/features_factory.h"
#include "trails/campaign/partial_iteration.h"
#include "trails/campaign/preflight.h"
#include "trails/campaign/projection_factory.h"
#include "trails/campaign/record_policy.h"
#include "trails/campaign/spawner_factory.h"
#include "trails/config/config_digest.h"
#include "trails/core/error.h"
#include "trails/core/fs.h"
#include "trails/core/python.h"
#include "trails/core/signals.h"
#include "trails/engines/registry.h"
#include "trails/exec/backend.h"
#include "trails/spaces/stored_space_model.h"
#include "trails/store/run_directory_lock.h"

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

bool msm_overlap_enabled(const RunOptions& options) {
  const char* env = std::getenv("TRAILS_MSM_OVERLAP");
  return options.overlap_msm && !(env != nullptr && std::string_view(env) == "0");
}

}  // namespace

CampaignDriver::CampaignDriver(const config::CampaignConfig& config, const RunOptions& options,
                               ProgressSink& progress)
    : config_(config), options_(options), progress_(progress), history_(config.cv_dimension()) {
  msm_ = std::make_unique<MsmElement>(
      std::make_unique<msm::MsmStage>(config.msm, config.random_seed, config.cv_dimension(),
                                      msm_overlap_enabled(options)),
      history_, [this](const msm::MsmBuild& built) { record_msm_build(built); });
  auto spawner = make_spawner(config);
  coverage_ = std::make_unique<CoverageElement>(
      binning::ResolutionController(config.n_bins, config.spawning.resolution_max_bins,
                                    config.spawning.resolution_check_patience,
                                    config.spawning.convergence_patience,
                                    cell_ladder(*spawner, config)),
      config.min_values, config.max_values, config.spawning.history_window, history_, *spawner);
  spawn_ =
      std::make_unique<SpawnElement>(std::move(spawner), config.random_seed, config.spawning.walker,
                                     history_, *coverage_, msm_->stage());
  clients_ = {coverage_.get(), spawn_.get(), msm_.get(), &packing_};
}

CampaignDriver::~CampaignDriver() {
  if (dir_lock_fd_ >= 0) ::close(dir_lock_fd_);
}

CampaignOutcome CampaignDriver::run() {
  // An existing directory is locked first (that creates nothing), so a run started while
  // another holds it hears so rather than what the other has written meanwhile.
  std::error_code ec;
  if (std::filesystem::is_directory(config_.outdir, ec))
    dir_lock_fd_ = store::lock_run_directory(config_.outdir);
  preflight(config_, options_.resume);  // nothing is created for a bad configuration
  // OpenMM preparation writes prepared/ into the run directory (and creates its missing
  // parents); bad CVs, force fields or seed trajectories must leave none of that behind.
  const std::filesystem::path created = store::outermost_missing(config_.outdir);
  if (dir_lock_fd_ < 0) dir_lock_fd_ = store::lock_run_directory(config_.outdir);
  // Under the lock, again: a run that held it before may have filled the directory since.
  if (!options_.resume && inspect_run_dir(config_.outdir) != RunDirState::Empty) {
    preflight(config_, false);
  }
  // What an existing outdir held before (an earlier run's prepared/, say): a run that stops
  // before its first commit removes only what it added.
  if (created.empty() && !options_.resume) preexisting_ = tree_of(config_.outdir);
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
                     (tree_of(config_.outdir) == preexisting_
                          ? " was left as it was before"
                          : " holds what it held before, except what the run replaced there") +
                     "; fix the cause and run the same command again");
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
  std::error_code ec;
  if (!created.empty()) return std::filesystem::remove_all(created, ec) > 0;
  // The directory existed, empty or with what an interrupted start leaves (preflight.h): only
  // what was not there when this run started is its own (never a user's prepared/).
  bool removed = false;
  std::vector<std::filesystem::path> added;
  for (auto it = std::filesystem::recursive_directory_iterator(config_.outdir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    const auto rel = it->path().lexically_relative(config_.outdir);
    if (!preexisting_.contains(rel.string())) {
      added.push_back(it->path());
      it.disable_recursion_pending();  // removed whole
    }
  }
  for (const auto& p : added) removed = std::filesystem::remove_all(p, ec) > 0 || removed;
  return removed;
}

std::set<std::string> CampaignDriver::tree_of(const std::filesystem::path& dir) {
  std::set<std::string> tree;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    tree.insert(it->path().lexically_relative(dir).string());
  }
  return tree;
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
  if (stopped_iteration_) {
    return core::Interrupted(
        signal,
        fmt::format("{}: {} iteration(s) committed in {} (the last: iteration {}); iteration {} "
                    "was stopped: its {} finished walker(s) are kept in {} and are not run again "
                    "by --resume, the others were ended",
                    how, *last + 1, config_.outdir.string(), *last, *stopped_iteration_,
                    stopped_walkers_, partial_dir(config_.outdir).string()),
        true);
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
  if (config_.spawning.inherit_velocities && !engine_->capabilities().continues_velocities) {
    throw core::ConfigError(
        "spawning.inherit_velocities: this engine draws fresh velocities for every segment; use "
        "md_engine: openmm or the built-in engine with integrator: langevin, or remove the key");
  }
  projection_ = make_projection(config_, *engine_);
  record_policy_ = make_record_policy(config_, *engine_);
  load_initial_trajectory();  // read and checked before anything is written
  core::throw_if_stop_requested();
  if (config_.learned_space()) {
    spaces::SpaceOptions options;
    options.mode = config_.space_mode;
    options.learned = config_.learned;
    options.seed = config_.random_seed;
    options.dim = config_.cv_dimension();
    space_ = std::make_unique<LearnedSpaceElement>(options, make_feature_source(config_, *engine_),
                                                   config_.learned.save_features, *projection_,
                                                   history_, *coverage_, store_, config_.outdir);
    clients_.push_back(space_.get());
  } else {
    TRAILS_CHECK(projection_->dimension() == config_.cv_dimension(),
                 "the projection's dimension must match n_bins (checked by the config)");
  }
  starts_ = std::make_unique<StartStatesElement>(
      StartStatesOptions{engine_->n_atoms(), engine_->spatial_dim(), projection_->is_identity(),
                         record_policy_.reduces(), config_.spawning.inherit_velocities,
                         config_.spawning.step, config_.spawning.stride,
                         config_.engine_seed_base()},
      history_, space_.get(), *spawn_, store_);
  if (options_.resume) {
    resume();
  } else {
    start_new();
  }
  start_executor();
  compose_iteration();
  progress_.started(banner());

  CampaignOutcome outcome;
  outcome.requested_iterations = options_.target_iterations;
  for (std::int64_t n = next_iteration_;
       n < options_.target_iterations && !coverage_->resolution().converged() &&
       !msm_->stage().converged();
       ++n) {
    core::throw_if_stop_requested();  // between iterations: the last one is committed
    progress_.iteration(run_iteration(n));
    ++outcome.ran_now;
  }
  msm_->join(nullptr);  // the last build: recorded now (a later --resume recomputes the same bits)
  const auto& resolution = coverage_->resolution();
  outcome.converged = resolution.converged() || msm_->stage().converged();
  outcome.reason = resolution.converged() ? resolution.reason() : msm_->stage().reason();
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
    names = spaces::learned_cv_names(config_.space_mode, config_.cv_dimension());
  } else {
    names = projection_->column_names();
    // Units a projection knows itself (a project_file's CV_UNITS) name the axes' units.
    if (auto units = projection_->column_units(); !units.empty()) {
      meta.engine_system["cv_units"] = units;
    }
  }
  meta.engine_system["cv_names"] = names;
  meta.engine_system["execution"] = execution_record();  // devices, MPS, MIG (docs/execution.md)
  meta.created_at = utc_now();
  meta.position_precision = record_policy_.position_precision;
  return meta;
}

void CampaignDriver::start_new() {
  store_.emplace(store::RunStore::create(config_.outdir, run_meta(), dir_lock_fd_));
  if (!space_) coverage_->start_uniform_grid();  // a learned space's comes at its first fit

  set_initial_walkers();
  log_ = std::make_unique<RunLog>(config_.outdir / "output.log", config_);
  log_->rewrite({});
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
    lines.push_back(fmt::format("  features    {} ({} columns{})", space_->stage().feature_type(),
                                space_->stage().n_features(),
                                config_.learned.selection.enabled ? ", VAMP-2 selection" : ""));
  }
  if (!initial_seeding_.empty()) lines.push_back("  seeds       " + initial_seeding_);
  lines.push_back(fmt::format(
      "  walkers     {} × {} steps, stride {} ({} frames each), {} worker(s){}", s.walker, s.step,
      s.stride, s.frames_per_walker(), executor_ ? executor_->workers() : s.max_workers,
      exec::slots_note(config::execution_spec_of(config_))));
  if (const auto devices = devices_banner()) lines.push_back("  placement   " + *devices);
  lines.push_back(fmt::format("  spawner     {} ({}), space {}, bins {}", s.spawn_scheme,
                              s.spawn_type == config::SpawnType::Hard ? "hard" : "soft",
                              config_.space_mode,
                              nlohmann::json(coverage_->resolution().n_bins()).dump()));
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