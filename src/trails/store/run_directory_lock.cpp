#include "trails/store/run_directory_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

#include "trails/core/error.h"
#include "trails/store/run_store.h"

namespace trails::store {

std::string another_run_holds(const std::filesystem::path& dir) {
  return "another trails process is running in " + dir.string() +
         "; wait for it to finish (nothing was changed)";
}

std::filesystem::path outermost_missing(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::path missing;
  for (auto p = dir; !p.empty() && !std::filesystem::exists(p, ec); p = p.parent_path()) {
    missing = p;
    if (p == p.parent_path()) break;
  }
  return missing;
}

int lock_run_directory(const std::filesystem::path& dir) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      throw core::InputError("cannot create the run directory " + dir.string() + ": " +
                             ec.message());
    }
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) continue;  // removed meanwhile by a run whose setup failed: create it again
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK) throw core::UsageError(another_run_holds(dir));
      return -1;  // locks unsupported on this file system: proceed without the guard
    }
    // A loser may lock a directory the winner removed after a failed setup: lock the one there.
    struct stat held {
    }, now{};
    if (::fstat(fd, &held) == 0 && ::stat(dir.c_str(), &now) == 0 && held.st_dev == now.st_dev &&
        held.st_ino == now.st_ino) {
      return fd;
    }
    ::close(fd);
  }
  throw core::UsageError(another_run_holds(dir));
}

int hold_ledger_lock(const std::filesystem::path& dir) {
  const auto ledger = RunStore::ledger_path(dir);
  const int fd = ::open(ledger.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    ::close(fd);
    return -1;
  }
  return fd;
}

bool run_active(const std::filesystem::path& dir) {
  const auto ledger = RunStore::ledger_path(dir);
  const int fd = ::open(ledger.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool busy = ::flock(fd, LOCK_SH | LOCK_NB) != 0;
  ::close(fd);
  return busy;
}

}  // namespace trails::store
