// MpiWorld (mpi_world.h).
#include "trails/exec/mpi/mpi_world.h"

#include <mpi.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "trails/core/error.h"
#include "trails/exec/mpi/mpi_channel.h"

namespace trails::exec {
namespace {

MpiWorld* g_world = nullptr;     // set by the one world of this process, on the main thread
std::atomic<int> g_launcher{0};  // the launcher's pid while a world exists

constexpr std::size_t kHostBytes = 256;

}  // namespace

bool MpiWorld::launched() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}) {
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') return true;
  }
  return false;
}

MpiWorld::MpiWorld() {
  TRAILS_CHECK(g_world == nullptr, "one MpiWorld per process");
  // Before MPI starts its threads: the guard forks its watcher and edits the environment.
  guard_ = std::make_unique<DescendantGuard>();
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    throw core::EngineError("MPI: MPI_Init_thread failed");
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    MPI_Finalize();
    throw core::EngineError(
        "MPI: this MPI library does not provide MPI_THREAD_MULTIPLE, which the MPI backend "
        "needs (a worker sends heartbeats while it waits for tasks); use Open MPI >= 3");
  }
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::array<char, kHostBytes> mine{};
  ::gethostname(mine.data(), mine.size() - 1);
  std::vector<char> all(kHostBytes * static_cast<std::size_t>(size));
  MPI_Allgather(mine.data(), kHostBytes, MPI_CHAR, all.data(), kHostBytes, MPI_CHAR,
                MPI_COMM_WORLD);
  for (int r = 0; r < size; ++r) hosts_.emplace_back(all.data() + r * kHostBytes);
  g_launcher = ::getppid();
  g_world = this;
}

MpiWorld::~MpiWorld() {
  if (launcher_gone()) {  // MPI_Finalize would wait for the launcher for ever
    g_world = nullptr;
    return;
  }
  if (rank_ == 0) {
    for (int r = 1; r < size(); ++r) {
      try {
        MpiChannel channel(r);
        send_message(channel, wire::Shutdown{"the driver is done"});
      } catch (const core::Error& e) {
        std::fprintf(stderr, "warning: rank %d was not told to stop: %s\n", r,
                     e.describe().c_str());
      }
    }
  }
  MPI_Finalize();
  g_world = nullptr;
}

MpiWorld* MpiWorld::current() { return g_world; }

int MpiWorld::serve(const EngineFactory& make_engine, const std::string& program) {
  TRAILS_CHECK(rank_ != 0, "rank 0 drives; only the other ranks serve");
  MpiChannel channel(0);
  // serve_worker builds an engine only after a Setup: a loop that built none met the final
  // Shutdown.
  bool built = false;
  const EngineFactory counted = [&](std::span<const std::uint8_t> setup) {
    built = true;
    return make_engine(setup);
  };
  for (;;) {
    built = false;
    if (const int rc = serve_worker(channel, counted, program); rc != 0) return rc;
    if (launcher_gone()) {
      std::fprintf(stderr, "trails: MPI rank %d: the MPI launcher is gone; ending this rank\n",
                   rank_);
      return 1;
    }
    if (!built) return 0;
  }
}

bool MpiWorld::launcher_gone() {
  const int launcher = g_launcher.load();
  return launcher != 0 && ::getppid() != launcher;
}

void MpiWorld::claim_workers() {
  TRAILS_CHECK(rank_ == 0, "only rank 0 makes executors");
  TRAILS_CHECK(!claimed_, "the worker ranks serve one executor at a time");
  claimed_ = true;
}

void MpiWorld::release_workers() { claimed_ = false; }

void MpiWorld::abort(const std::string& message) {
  if (launcher_gone()) {  // nobody would carry MPI_Abort to the other ranks
    std::fprintf(stderr,
                 "error: the MPI launcher (mpirun) of this job is gone, so rank 0 ends too; the "
                 "iterations committed so far are kept: continue with the same launch command "
                 "and --resume\n");
    std::_Exit(1);
  }
  std::fprintf(stderr, "error: %s\n", message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);  // MPI_Abort does not return; should it, the job ends all the same
}

}  // namespace trails::exec
