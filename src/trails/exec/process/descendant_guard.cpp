// DescendantGuard and watch_descendants (descendant_guard.h).
#include "trails/exec/process/descendant_guard.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "trails/core/error.h"
#include "trails/core/process_tree.h"
#include "trails/core/subprocess.h"

namespace trails::exec {

DescendantGuard::DescendantGuard() {
  core::ProcessOptions joined;
  const std::string token = core::join_process_tree(joined);
  // Started before the environment names the tree, so the watcher is no member of it.
  watcher_ = std::make_unique<core::ChildProcess>(std::vector<std::string>{
      std::filesystem::read_symlink("/proc/self/exe").string(), "worker", "--guard-tree", token});
  const auto& [name, value] = joined.set_env.back();
  TRAILS_CHECK(::setenv(name.c_str(), value.c_str(), 1) == 0, "setenv of the process tree");
}

DescendantGuard::~DescendantGuard() = default;  // ChildProcess ends the watcher

int watch_descendants(const std::string& token) {
  char buffer[256];
  for (;;) {
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  core::end_process_tree(token);
  return 0;
}

}  // namespace trails::exec
