#include "trails/core/fs.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "trails/core/error.h"

namespace trails::core {
namespace {

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& path) {
  throw StoreError(what + " " + path.string() + ": " + std::strerror(errno));
}

void fsync_path(const std::filesystem::path& path, int flags) {
  int fd = ::open(path.c_str(), flags);
  if (fd < 0) fail("cannot open for fsync", path);
  if (::fsync(fd) != 0) {
    ::close(fd);
    fail("fsync failed for", path);
  }
  ::close(fd);
}

}  // namespace

void fsync_file(const std::filesystem::path& path) { fsync_path(path, O_RDONLY); }

void fsync_directory(const std::filesystem::path& dir) {
  fsync_path(dir.empty() ? std::filesystem::path(".") : dir, O_RDONLY | O_DIRECTORY);
}

void write_file_atomic(const std::filesystem::path& path, std::string_view content) {
  const auto tmp = std::filesystem::path(path.string() + ".tmp");
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) fail("cannot create", tmp);
  const char* p = content.data();
  std::size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      fail("cannot write", tmp);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    fail("fsync failed for", tmp);
  }
  ::close(fd);
  rename_durable(tmp, path);
}

void rename_durable(const std::filesystem::path& from, const std::filesystem::path& to) {
  if (::rename(from.c_str(), to.c_str()) != 0) fail("cannot rename " + from.string() + " to", to);
  fsync_directory(to.parent_path());
}

}  // namespace trails::core
