// DescendantGuard: nothing this process started outlives it, however it ends (kill -9 of the
// process or of its MPI launcher included; docs/execution.md, "No walker outlives its driver").
// It joins this process to a process tree of its own (core/process_tree.h), so every child
// started afterwards and every descendant of those carries the tree's token, and forks a
// watcher, a copy of this process that keeps nothing of it but the read end of a pipe whose
// write end only this process holds (close-on-exec, so no program started here inherits it):
// when this process is gone the kernel closes the pipe and the watcher ends the tree. A fork
// rather than a program start: the watcher costs no start-up (the `trails` binary's static
// initialisation is about 0.4 s of CPU) and cannot fail to be found. Made by MPI ranks before
// MPI_Init (mpi_world.h) and by the drivers of in-process backends (backend.h). Make it on the
// main thread before other threads start children (it edits the environment).
#pragma once

#include <sys/types.h>

namespace trails::exec {

class DescendantGuard {
 public:
  // Throws EngineError when the pipe or the fork fails (the environment is then unchanged): a
  // guard either runs or the caller hears why not.
  DescendantGuard();
  // Closes the pipe and waits for the watcher, which ends the tree (empty by then: every child
  // was ended or waited for) and exits.
  ~DescendantGuard();
  DescendantGuard(const DescendantGuard&) = delete;
  DescendantGuard& operator=(const DescendantGuard&) = delete;

  pid_t watcher_pid() const { return watcher_; }

 private:
  pid_t watcher_ = -1;
  int pipe_ = -1;  // the write end
};

}  // namespace trails::exec
