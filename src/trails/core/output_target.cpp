#include "trails/core/output_target.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <system_error>

#include "trails/core/error.h"
#include "trails/core/fs.h"

namespace trails::core {
namespace fs = std::filesystem;
namespace {

// What a run directory's store and campaign own, by the first name below the directory that
// holds ledger.sqlite (store/run_store.h; output.log, convergence.json and project_file.tmp of
// the campaign; prepared/ of the OpenMM engine; partial/, the walkers a stopped iteration kept).
// Prefixes cover -wal, -shm, -journal and .tmp.
bool store_owned(const std::string& first) {
  for (const char* prefix : {"ledger.sqlite", "output.log", "convergence.json", "project_file"}) {
    if (first.starts_with(prefix)) return true;
  }
  return first == "shards" || first == "prepared" || first == "partial";
}

// The run directory whose store owns `path` (absolute, links resolved), if any.
std::optional<fs::path> owning_run_dir(const fs::path& path) {
  std::error_code ec;
  for (fs::path dir = path.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (fs::is_regular_file(dir / "ledger.sqlite", ec)) {
      const auto first = path.lexically_relative(dir).begin()->string();
      if (store_owned(first)) return dir;
    }
    if (dir == dir.root_path()) break;
  }
  return std::nullopt;
}

// Absolute, `.`/`..` and every symlink resolved, dangling ones included (they are written
// through, like any other link).
fs::path resolve(const fs::path& given) {
  fs::path p = fs::absolute(given).lexically_normal();
  std::error_code ec;
  for (int hops = 0; hops < 40; ++hops) {
    p = fs::weakly_canonical(p, ec);
    if (ec) throw UsageError(given.string() + ": cannot resolve the path: " + ec.message());
    if (!fs::is_symlink(fs::symlink_status(p, ec))) return p;
    // weakly_canonical stops at a link whose target does not exist yet: follow it by hand.
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) throw UsageError(given.string() + ": cannot read the link: " + ec.message());
    p = (to.is_absolute() ? to : p.parent_path() / to).lexically_normal();
  }
  throw UsageError(given.string() + ": too many levels of symbolic links");
}

std::string kind_of(fs::file_type type) {
  switch (type) {
    case fs::file_type::directory:
      return "a directory";
    case fs::file_type::fifo:
      return "a FIFO (named pipe)";
    case fs::file_type::character:
      return "a character device";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::socket:
      return "a socket";
    default:
      return "not a regular file";
  }
}

}  // namespace

OutputTarget check_output(std::string option, const fs::path& given, ParentDir parent) {
  OutputTarget t{std::move(option), given, resolve(given)};
  const std::string head = t.option + " " + given.string();
  const std::string via = t.path == fs::absolute(given).lexically_normal()
                              ? std::string()
                              : " (a link to " + t.path.string() + ")";
  if (const auto run = owning_run_dir(t.path)) {
    throw UsageError(head + via + ": is a file of the run directory " + run->string() +
                     ", which its run store owns; writing it would destroy the run. Give a file "
                     "name outside the run's store (for example under " +
                     (*run / "plots").string() + "); nothing was written");
  }
  std::error_code ec;
  const auto st = fs::status(t.path, ec);
  if (fs::exists(st) && !fs::is_regular_file(st)) {
    throw UsageError(head + via + ": is " + kind_of(st.type()) +
                     ", not a regular file; give the name of a file to write; nothing was "
                     "written");
  }
  const fs::path dir = t.path.parent_path();
  if (parent == ParentDir::MustExist && !fs::is_directory(dir, ec)) {
    throw UsageError(head + ": directory " + dir.string() +
                     " does not exist; create it first; nothing was written");
  }
  return t;
}

std::vector<OutputTarget> check_outputs(
    const std::vector<std::pair<std::string, fs::path>>& outputs, ParentDir parent) {
  std::vector<OutputTarget> out;
  for (const auto& [option, path] : outputs) {
    OutputTarget t = check_output(option, path, parent);
    for (const auto& earlier : out) {
      std::error_code ec;
      if (earlier.path == t.path || fs::equivalent(earlier.path, t.path, ec)) {
        throw UsageError(earlier.option + " " + earlier.given.string() + " and " + t.option + " " +
                         path.string() + " name the same file (" + t.path.string() +
                         "); give each output its own file; nothing was written");
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

PendingOutput::PendingOutput(const OutputTarget& target)
    : target_(check_output(target.option, target.given)) {
  const fs::path& path = target_.path;
  const std::string ext = path.extension().string();
  std::string tmpl =
      (path.parent_path() / ("." + path.filename().string() + ".tmp-XXXXXX" + ext)).string();
  fd_ = ::mkstemps(tmpl.data(), static_cast<int>(ext.size()));
  if (fd_ < 0) {
    throw StoreError("cannot write " + path.string() + ": cannot create a temporary file in " +
                     path.parent_path().string() + ": " + std::strerror(errno));
  }
  temp_ = tmpl;
  struct stat st {};
  const mode_t mode = ::stat(path.c_str(), &st) == 0 ? (st.st_mode & 07777) : 0644;
  if (::fchmod(fd_, mode) != 0) fail("cannot set the permissions of");
}

PendingOutput::~PendingOutput() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

void PendingOutput::fail(const std::string& what) {
  const std::string reason = std::strerror(errno);
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(temp_.c_str());
  temp_.clear();
  throw StoreError(what + " " + target_.path.string() + ": " + reason + "; " +
                   target_.path.string() + " was left as it was");
}

void PendingOutput::write(std::string_view content) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd_, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      fail("cannot write");
    }
    content.remove_prefix(static_cast<std::size_t>(n));
  }
}

void PendingOutput::commit() {
  // A writer that wrote temp_ by name wrote through its own descriptor; fsync syncs the file.
  if (::fsync(fd_) != 0) fail("cannot write (fsync)");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot write (close)");
  if (::rename(temp_.c_str(), target_.path.c_str()) != 0) fail("cannot rename the temporary to");
  committed_ = true;
  fsync_directory(target_.path.parent_path());
}

void write_output(const OutputTarget& target, std::string_view content) {
  PendingOutput out(target);
  out.write(content);
  out.commit();
}

}  // namespace trails::core
