#include "trails/engines/external/walker_directory.h"

#include <cerrno>
#include <cstdlib>
#include <string>
#include <system_error>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "trails/core/error.h"

namespace trails::engines::external {

namespace fs = std::filesystem;

fs::path scratch_root(const config::WalkerFilesSpec& files) {
  if (files.scratch) return *files.scratch;
  const char* tmpdir = std::getenv("TMPDIR");
  return tmpdir != nullptr && *tmpdir != '\0' ? fs::path(tmpdir) : fs::path("/tmp");
}

WalkerDirectory::WalkerDirectory(const config::WalkerFilesSpec& files, const fs::path& run_dir,
                                 std::int64_t iteration, std::int64_t walker) {
  const fs::path root = scratch_root(files);
  std::string templ = (root / fmt::format("trails-i{}-w{}-XXXXXX", iteration, walker)).string();
  if (::mkdtemp(templ.data()) == nullptr) {
    const std::error_code ec(errno, std::generic_category());
    throw core::InputError(fmt::format(
        "cannot create a walker directory in {}: {}; set execution.scratch (or $TMPDIR) to a "
        "writable node-local directory",
        root.string(), ec.message()));
  }
  path_ = templ;
  if (files.keep_walker_files) {
    kept_ = run_dir / "walker_files" / fmt::format("iteration_{:06d}", iteration) /
            fmt::format("walker_{:06d}", walker);
  }
}

WalkerDirectory::~WalkerDirectory() {
  if (keep_in_place_) return;
  std::error_code ec;
  if (!kept_.empty()) {
    // A re-run of the iteration (resume) replaces what an interrupted attempt kept.
    fs::remove_all(kept_, ec);
    fs::create_directories(kept_.parent_path(), ec);
    fs::rename(path_, kept_, ec);
    if (ec) {  // another file system: copy, then remove the scratch copy
      ec.clear();
      fs::copy(path_, kept_, fs::copy_options::recursive, ec);
      if (ec) spdlog::warn("cannot keep walker files in {}: {}", kept_.string(), ec.message());
    }
  }
  fs::remove_all(path_, ec);
  if (ec) spdlog::warn("cannot remove walker directory {}: {}", path_.string(), ec.message());
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

SegmentResult run_walker(const SegmentTask& task, const config::WalkerFilesSpec& files,
                         const fs::path& run_dir, const WalkerSite& site, const WalkerBody& body) {
  SegmentResult result;
  result.task_id = task.task_id;
  result.platform = site.platform;
  result.host = site.host;
  result.device = site.device ? std::to_string(*site.device) : std::string();
  result.n_atoms = site.n_atoms;
  result.spatial_dim = site.spatial_dim;
  const std::string label = fmt::format("walker {} of iteration {}", task.walker, task.iteration);
  try {
    WalkerDirectory dir(files, run_dir, task.iteration, task.walker);
    try {
      body(dir.path(), result);
      result.status = SegmentStatus::Ok;
    } catch (const core::Error& e) {
      result.error = fmt::format("{}: {}\n(the walker's files are kept in {})", label, e.what(),
                                 dir.keep().string());
    }
  } catch (const core::Error& e) {  // no walker directory
    result.error = fmt::format("{}: {}", label, e.what());
  }
  if (!result.error.empty()) {
    result.status = SegmentStatus::Failed;
    result.frames.clear();
    result.frame_boxes.clear();
    result.n_frames = 0;
  }
  return result;
}

}  // namespace trails::engines::external
