#include "trails/campaign/run_directory_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

#include "trails/core/error.h"
#include "trails/store/run_store.h"

namespace trails::campaign {
namespace {

std::string another_run(const std::filesystem::path& outdir) {
  return "another trails process is running a campaign in " + outdir.string() +
         "; wait for it to finish (nothing was changed)";
}

}  // namespace

std::filesystem::path outermost_missing(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::path missing;
  for (auto p = dir; !p.empty() && !std::filesystem::exists(p, ec); p = p.parent_path()) {
    missing = p;
    if (p == p.parent_path()) break;
  }
  return missing;
}

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

}  // namespace trails::campaign
