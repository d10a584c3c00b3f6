// MpiWorld: `trails run` as one MPI job (docs/execution.md, "MPI ranks"). Every rank runs the
// same command line; the world initialises MPI (MPI_THREAD_MULTIPLE), learns each rank's host,
// and splits the job: rank 0 drives the campaign, ranks 1..K-1 serve it as persistent workers
// (serve(): the worker loop of worker.h over an MpiChannel to rank 0). A worker rank serves one
// executor at a time: Setup starts it, Shutdown ends it (the executor sends it when it is
// destroyed) and the rank waits for the next Setup; a Shutdown in place of a Setup ends the rank,
// which rank 0's world sends to every worker rank when it ends. One world per process, made on
// the main thread; static ranks only (no MPI_Comm_spawn).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "trails/exec/process/descendant_guard.h"
#include "trails/exec/wire/worker.h"

namespace trails::exec {

class MpiWorld {
 public:
  // Whether an MPI launcher (mpirun, srun --mpi=pmix, mpiexec) started this process: its
  // environment carries a rank (OMPI_COMM_WORLD_RANK, PMIX_RANK or PMI_RANK). Without one,
  // MPI would start a world of size 1.
  static bool launched();

  // Collective: every rank of MPI_COMM_WORLD must make its world. Throws EngineError when MPI
  // cannot give MPI_THREAD_MULTIPLE. Each rank first starts its DescendantGuard: a rank that
  // Open MPI ends (it exits every rank whose mpirun was killed) or that is killed takes its
  // walkers' programs with it.
  MpiWorld();
  // Rank 0 sends Shutdown to every worker rank; then MPI_Finalize.
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return static_cast<int>(hosts_.size()); }
  const std::vector<std::string>& hosts() const { return hosts_; }  // host of each rank
  // The world this process made, or nullptr.
  static MpiWorld* current();

  // Ranks 1..K-1: serves one executor after another until rank 0 sends Shutdown in place of a
  // Setup (returns 0), or the worker loop fails (returns its exit code).
  int serve(const EngineFactory& make_engine, const std::string& program);
  // Rank 0: the worker ranks serve one executor at a time; claiming them while another
  // executor holds them is an InternalError. The executor releases them once it has sent each
  // rank its Shutdown.
  void claim_workers();
  void release_workers();

  // Writes "error: MESSAGE" to stderr and ends the whole job (MPI_Abort, exit code 1): what a
  // driver does when a rank is lost, since MPI cannot replace one. Without a launcher left to
  // carry the abort, this process exits alone.
  [[noreturn]] static void abort(const std::string& message);

  // Whether the process that started this rank (mpirun, its daemon, slurmstepd) has gone: Open
  // MPI 4.1 tells no rank when mpirun is killed, and each rank is its own process group, so an
  // MPI channel that waits asks this (and then reports its peer as closed) instead of waiting
  // for ever. False for a process without a world.
  static bool launcher_gone();

 private:
  int rank_ = 0;
  int launcher_pid_ = 0;  // getppid() when the world was made
  std::vector<std::string> hosts_;
  bool claimed_ = false;
  std::unique_ptr<DescendantGuard> guard_;
};

}  // namespace trails::exec
