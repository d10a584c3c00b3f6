#include "trails/campaign/preflight.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include "trails/campaign/project_file_projection.h"
#include "trails/campaign/projection_factory.h"
#include "trails/core/error.h"
#include "trails/engines/registry.h"
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

void preflight(const config::CampaignConfig& config, bool resume) {
  check_outdir_writable(config.outdir);
  const RunDirState state = inspect_run_dir(config.outdir);
  const std::string dir = config.outdir.string();
  if (!resume) {
    if (state == RunDirState::RunStore) {
      throw core::UsageError("run directory " + dir +
                             " already holds a campaign; continue it with --resume, or set a "
                             "different outdir (nothing was changed)");
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
  }
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
}

}  // namespace trails::campaign
