// DescendantGuard: nothing this process started outlives it, however it ends (kill -9 of the
// process or of its MPI launcher included; docs/execution.md, "No walker outlives its driver").
// It joins this process to a process tree of its own (core/process_tree.h), so every child
// started afterwards and every descendant of those carries the tree's token, and starts a
// watcher, `PROGRAM worker --guard-tree TOKEN`, whose stdin pipe only this process holds: when
// this process is gone the kernel closes the pipe and the watcher ends the tree. Made by MPI
// ranks (mpi_world.h) and by the drivers of in-process backends (backend.h). Make it on the
// main thread before other threads start children (it edits the environment).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

namespace trails::core {
class ChildProcess;
}

namespace trails::exec {

class DescendantGuard {
 public:
  // The watcher is this program (/proc/self/exe), which must serve `worker --guard-tree`.
  DescendantGuard();
  // Throws EngineError naming `program` when the watcher does not start (it cannot be run, or
  // it ends or stays silent instead of saying that it watches the tree): a guard either runs
  // or the caller hears why not. The environment is changed only once the watcher runs.
  explicit DescendantGuard(const std::filesystem::path& program);
  // Ends the watcher (whose tree is empty by then: every child was ended or waited for).
  ~DescendantGuard();
  DescendantGuard(const DescendantGuard&) = delete;
  DescendantGuard& operator=(const DescendantGuard&) = delete;

 private:
  std::unique_ptr<core::ChildProcess> watcher_;
};

// The watcher's side: says on stdout that it watches (the line DescendantGuard waits for),
// waits until its stdin is closed, then SIGKILLs the tree of `token` (core::end_process_tree);
// returns 0. It ignores SIGINT, SIGTERM and SIGHUP: only the closed pipe (or SIGKILL) ends it.
int watch_descendants(const std::string& token);

}  // namespace trails::exec
