#include "trails/campaign/preflight.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "trails/campaign/features_factory.h"
#include "trails/campaign/project_file_projection.h"
#include "trails/campaign/projection_factory.h"
#include "trails/config/config_digest.h"
#include "trails/config/file_keys.h"
#include "trails/core/error.h"
#include "trails/engines/registry.h"
#include "trails/exec/backend.h"
#include "trails/store/run_store.h"

namespace trails::campaign {
namespace fs = std::filesystem;

namespace {

// What RunStore::create leaves when it is killed before its ledger is renamed into place: a
// temporary ledger and an empty shards/ directory, and the OpenMM engine's prepared/ systems
// (made just before; reused by digest). Such a directory counts as empty.
bool only_interrupted_create(const fs::path& dir) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("ledger.sqlite.tmp", 0) == 0) continue;
    if (name == "shards" && entry.is_directory() && fs::is_empty(entry.path(), ec)) continue;
    if (name == "prepared" && entry.is_directory()) continue;
    return false;
  }
  return !ec;
}

nlohmann::json::json_pointer pointer_of(const std::string& dotted_key) {
  std::string pointer = "/" + dotted_key;
  std::replace(pointer.begin(), pointer.end(), '.', '/');
  return nlohmann::json::json_pointer(pointer);
}

std::string describe_change(const nlohmann::json& before, const nlohmann::json& after,
                            const std::string& key) {
  const auto ptr = pointer_of(key);
  const auto show = [&](const nlohmann::json& j) {
    return j.contains(ptr) ? j.at(ptr).dump() : std::string("(absent)");
  };
  return fmt::format("{}: {} -> {}", key, show(before), show(after));
}

// Bytes of memory available to this process: MemAvailable, else free pages.
double available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string name;
  double kb = 0;
  std::string unit;
  while (meminfo >> name >> kb >> unit) {
    if (name == "MemAvailable:") return kb * 1024.0;
  }
  return static_cast<double>(::sysconf(_SC_AVPHYS_PAGES)) *
         static_cast<double>(::sysconf(_SC_PAGESIZE));
}

std::string gigabytes(double bytes) { return fmt::format("{:.3g} GB", bytes / 1e9); }

// The built-in engine is cheap to step: one short segment per start point (at most kProbeSteps
// steps, no synthetic cost) shows a dt, kT or start that makes the coordinates non-finite.
// One start point per walker, or one for all (config/cross_checks.cpp): a failing start fails
// the walkers that start from it, which the failure policy may tolerate (docs/reliability.md).
void probe_first_steps(const config::CampaignConfig& config) {
  constexpr std::int64_t kProbeSteps = 100;
  config::BuiltinSpec spec = config.engine.builtin;
  spec.synthetic_cost_ms = 0.0;
  spec.synthetic_startup_ms = 0.0;
  const auto engine = engines::make_engine(config::EngineSpec(spec), {});
  const auto instance = engine->make_instance();
  const auto& starts = config.system.start;
  const std::size_t n = std::max<std::size_t>(1, starts.size());
  const auto walkers = static_cast<std::size_t>(config.spawning.walker);
  const std::size_t walkers_per_start = n == 1 ? walkers : 1;
  std::size_t failed_walkers = 0;
  std::string first_failure;
  for (std::size_t i = 0; i < n; ++i) {
    engines::SegmentTask task;
    task.walker = static_cast<std::int64_t>(i);
    task.start = engine->default_start();
    if (!starts.empty()) task.start.positions = starts[i];
    task.steps = std::min<std::int64_t>(config.spawning.step, kProbeSteps);
    task.stride = task.steps;
    task.seed = config.random_seed;
    const auto result = instance->run(task);
    if (result.ok()) continue;
    failed_walkers += walkers_per_start;
    const std::string where =
        starts.empty()
            ? std::string("the potential's default start")
            : fmt::format("system.start{}", n > 1 ? fmt::format("[{}]", i) : std::string());
    const std::string what = fmt::format("the first {} steps from {} already fail ({})", task.steps,
                                         where, result.error);
    if (first_failure.empty()) first_failure = what;
    if (walkers_per_start < walkers) spdlog::warn("{}: {}", config.config_file.string(), what);
  }
  const std::size_t ok = walkers - failed_walkers;
  if (failed_walkers > 0 &&
      (ok == 0 ||
       static_cast<double>(ok) < config.min_success_fraction * static_cast<double>(walkers))) {
    throw core::InputError(fmt::format(
        "{}: {}; `trails run` would fail in iteration 0 ({} of {} walkers would succeed, "
        "min_success_fraction {}): fix engine.dt / engine.kT or the start point",
        config.config_file.string(), first_failure, ok, walkers, config.min_success_fraction));
  }
}

}  // namespace

RunDirState inspect_run_dir(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return RunDirState::Absent;
  if (store::RunStore::exists(dir)) return RunDirState::RunStore;
  if (fs::is_directory(dir, ec) && only_interrupted_create(dir)) return RunDirState::Empty;
  return RunDirState::Foreign;
}

void check_outdir_writable(const fs::path& dir) {
  // Walk up to the nearest existing ancestor: it must be a writable directory on a writable
  // file system, or the run directory cannot be created.
  fs::path probe = dir;
  std::error_code ec;
  while (!probe.empty() && !fs::exists(probe, ec)) {
    if (probe == probe.parent_path()) break;
    probe = probe.parent_path();
  }
  const std::string hint = "; choose another outdir (or fix the permissions)";
  if (!fs::is_directory(probe, ec)) {
    throw core::InputError("outdir " + dir.string() + " cannot be created: " + probe.string() +
                           " exists and is not a directory" + hint);
  }
  struct statvfs info {};
  if (::statvfs(probe.c_str(), &info) == 0 && (info.f_flag & ST_RDONLY) != 0) {
    throw core::InputError("outdir " + dir.string() + " cannot be created: " + probe.string() +
                           " is on a read-only file system" + hint);
  }
  if (::access(probe.c_str(), W_OK | X_OK) != 0) {
    throw core::InputError("outdir " + dir.string() + " is not writable: no write permission on " +
                           probe.string() + hint);
  }
}

void refuse_non_finite_history(const config::CampaignConfig& config, const store::RunStore& store) {
  for (const auto& rec : store.load_iterations()) {
    const auto bad =
        std::find_if_not(rec.cvs.begin(), rec.cvs.end(), [](double v) { return std::isfinite(v); });
    if (bad == rec.cvs.end()) continue;
    // Which walker's frame it is: rows are the ok walkers' frames, in walker order.
    auto row = (bad - rec.cvs.begin()) / std::max(1, rec.cv_dim);
    std::int64_t walker = -1;
    for (const auto& w : rec.walkers) {
      if (!w.ok) continue;
      if (row < w.n_frames) {
        walker = w.walker;
        break;
      }
      row -= w.n_frames;
    }
    throw core::InputError(fmt::format(
        "{}: iteration {} holds a non-finite CV ({} in frame {} of walker {}), committed by a "
        "Trails version that did not yet fail such walkers (docs/reliability.md, \"Non-finite "
        "values\"). The spawner and the bins cannot use it, so this run cannot be continued: "
        "start a new run directory with the same configuration (this version fails such a "
        "walker alone and the failure policy decides); trails export, status and plot still "
        "read this run. Nothing was changed",
        config.outdir.string(), rec.iteration, *bad, row, walker));
  }
}

void preflight(const config::CampaignConfig& config, bool resume) {
  check_outdir_writable(config.outdir);
  const RunDirState state = inspect_run_dir(config.outdir);
  const std::string dir = config.outdir.string();
  if (!resume) {
    if (state == RunDirState::RunStore) {
      bool committed = true;
      try {
        committed = store::RunStore::open(config.outdir, store::RunStore::Mode::ReadOnly)
                        .last_committed()
                        .has_value();
      } catch (const core::Error&) {  // a damaged ledger: the plain message below still applies
      }
      throw core::UsageError(
          "run directory " + dir +
          " already holds a campaign; continue it with --resume, or set a " +
          "different outdir (nothing was changed)" +
          (committed ? ""
                     : "; it has no committed iteration (a run that stopped before its first "
                       "commit): if it is yours, remove the directory to start afresh"));
    }
    if (state == RunDirState::Foreign) {
      throw core::InputError("outdir " + dir +
                             " exists and is not empty; choose a new or empty directory (nothing "
                             "was changed)");
    }
  } else if (state != RunDirState::RunStore) {
    throw core::UsageError("--resume: " + dir +
                           " is not a Trails run directory (no ledger.sqlite); run without "
                           "--resume to start a new campaign");
  } else {
    // A changed config is refused before anything is built, by check --resume as by run.
    const auto store = store::RunStore::open(config.outdir, store::RunStore::Mode::ReadOnly);
    (void)check_resume_config(config, store);
    refuse_non_finite_history(config, store);
  }
  // Logical devices must exist in the inherited CUDA_VISIBLE_DEVICES (ConfigError naming both).
  (void)exec::device_plan_of(config::execution_spec_of(config));
  // The project file must be importable, with a callable extract_cvs
  // (compat:preflight-project-file).
  check_project_file(config);
}

void check_engine_and_cvs(const config::CampaignConfig& config) {
  // Engines that prepare their system (OpenMM) do it in a scratch directory removed afterwards.
  std::string templ = (std::filesystem::temp_directory_path() / "trails-check-XXXXXX").string();
  if (::mkdtemp(templ.data()) == nullptr) {
    throw core::InputError("cannot create a scratch directory in " +
                           std::filesystem::temp_directory_path().string() +
                           " to prepare the system; set TMPDIR to a writable directory");
  }
  const std::filesystem::path scratch = templ;
  struct Remove {
    std::filesystem::path dir;
    ~Remove() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } remove{scratch};
  const auto engine = engines::make_engine(config.engine_spec(), scratch);
  (void)make_projection(config, *engine);
  // A learned space's features (feature atoms, types) are resolved as the run resolves them.
  if (config.learned_space()) (void)make_feature_source(config, *engine);
  check_memory(config, *engine);
  (void)read_initial_trajectory(config, *engine);
  // The probe steps the built-in engine itself; a command engine's point system is the user's.
  if (std::holds_alternative<config::BuiltinSpec>(config.engine_spec())) probe_first_steps(config);
}

std::vector<store::ConfigChange> check_resume_config(const config::CampaignConfig& config,
                                                     const store::RunStore& store) {
  auto before = store.meta().config;
  auto after = config.result_relevant_json();
  // A run made before position grids: exact shards where the engine's default is now a grid, and
  // a stored config that cannot name output.position_precision (a later run with the default
  // records the grid in meta). A file that leaves the key out continues it exact (resume()), so
  // does one that says exact; one that names a grid asks for another storage (docs/file-formats.md,
  // "Quantised positions").
  const auto precision = nlohmann::json::json_pointer("/output/position_precision");
  if (store.meta().position_precision == 0.0 && config.default_position_precision() > 0.0 &&
      !before.contains(precision)) {
    const double asked = config.output.position_precision;
    const bool named =
        config::file_sets_key(config.config_file, "output", "position_precision") && asked > 0.0;
    before[precision] = "exact";
    after[precision] = named ? nlohmann::json(asked) : nlohmann::json("exact");
  }
  std::vector<std::string> refused;
  std::vector<store::ConfigChange> allowed;
  const auto last = store.last_committed();
  for (const auto& key : config::keys_changed(before, after)) {
    // Before the first commit no history depends on any key: all may change (and are recorded).
    if (last && !config::changeable_on_resume(key)) {
      refused.push_back(key);
      continue;
    }
    const auto ptr = pointer_of(key);
    allowed.push_back({last ? *last + 1 : 0, key, before.value(ptr, nlohmann::json()),
                       after.value(ptr, nlohmann::json()), ""});
  }
  if (refused.empty()) return allowed;
  std::string msg = "--resume: the configuration changed in ways that alter results:";
  for (const auto& key : refused) msg += "\n  " + describe_change(before, after, key);
  std::string changeable;
  for (const auto& key : config::resume_changeable_keys()) {
    changeable += (changeable.empty() ? "" : ", ") + key;
  }
  msg += "\nrestore these keys to continue " + config.outdir.string() +
         ", or start a new campaign in another outdir (nothing was changed); only " + changeable +
         " may change on resume";
  throw core::ConfigError(msg);
}

void check_memory(const config::CampaignConfig& config, const engines::Engine& engine) {
  // The whole iteration is in flight (docs/execution.md): every walker's frames are held at once.
  const auto& s = config.spawning;
  const double values = static_cast<double>(engine.n_atoms()) * engine.spatial_dim();
  const double need = static_cast<double>(s.walker) * static_cast<double>(s.frames_per_walker()) *
                      values * sizeof(double);
  const double have = available_memory_bytes();
  if (need > have) {
    throw core::InputError(fmt::format(
        "{}: one iteration holds spawning.walker × spawning.step / spawning.stride = {} × {} "
        "frames of {} coordinates, {} of memory, more than the {} available; lower "
        "spawning.walker or spawning.step, or raise spawning.stride",
        config.config_file.string(), s.walker, s.frames_per_walker(), values, gigabytes(need),
        gigabytes(have)));
  }
}

std::optional<trajio::Trajectory> read_initial_trajectory(const config::CampaignConfig& config,
                                                          const engines::Engine& engine) {
  const auto& path = config.system.initial_trajectory;
  if (!path) return std::nullopt;
  if (!engine.system().molecular) {
    throw core::ConfigError(
        "system.initial_trajectory needs a molecular engine (engine.md_engine: "
        "openmm); the " +
        engine.name() + " engine starts from system.start");
  }
  std::optional<trajio::Trajectory> traj;
  try {
    traj = trajio::read_trajectory(*path, engine.n_atoms());
  } catch (const core::Error& e) {  // a damaged or mismatched file is bad input (exit 2)
    throw core::InputError("system.initial_trajectory: " + e.describe() +
                           "; give an XTC or DCD trajectory of the system in system.conf_file");
  }
  if (traj->frames.empty()) {
    throw core::InputError(path->string() + " (system.initial_trajectory) has no frames");
  }
  return traj;
}

}  // namespace trails::campaign
