// DescendantGuard: nothing this process started outlives it, however it ends (kill -9 of the
// process or of its MPI launcher included; docs/execution.md, "MPI ranks"). It joins this
// process to a process tree of its own (core/process_tree.h), so every child started afterwards
// and every descendant of those carries the tree's token, and starts a watcher, `trails worker
// --guard-tree TOKEN`, whose stdin pipe only this process holds: when this process is gone the
// kernel closes the pipe and the watcher ends the tree. Make it on the main thread before
// other threads start children (it edits the environment).
#pragma once

#include <memory>
#include <string>

namespace trails::core {
class ChildProcess;
}

namespace trails::exec {

class DescendantGuard {
 public:
  // Throws InputError when the watcher cannot be started.
  DescendantGuard();
  // Ends the watcher (whose tree is empty by then: every child was ended or waited for).
  ~DescendantGuard();
  DescendantGuard(const DescendantGuard&) = delete;
  DescendantGuard& operator=(const DescendantGuard&) = delete;

 private:
  std::unique_ptr<core::ChildProcess> watcher_;
};

// The watcher's side: waits until its stdin is closed, then SIGKILLs the tree of `token`
// (core::end_process_tree); returns 0.
int watch_descendants(const std::string& token);

}  // namespace trails::exec
