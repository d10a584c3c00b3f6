// A swarm run's store (private to the swarm module): the campaign's run store, one store
// iteration per chain-cycle in (cycle, chain) order (docs/file-formats.md, "Swarm runs"). Each
// iteration holds the cycle's N trials and its extension as walkers N (seeds, status, timings,
// selection probability as weight), the new anchor's one frame and CVs, the anchor as the
// iteration's spawn, and the store::CycleRecord under element key "swarm".
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trails/config/swarm_config.h"
#include "trails/engines/engine.h"
#include "trails/store/cycle_record.h"
#include "trails/store/run_store.h"
#include "trails/swarm/chain_cycle.h"

namespace trails::swarm {

// The stored anchor frame `key` as a configuration shaped like `layout` (positions and box, no
// velocities).
engines::Configuration stored_anchor(const store::RunStore& store, const core::FrameKey& key,
                                     const engines::Configuration& layout);

class SwarmStore {
 public:
  // Takes the run directory's lock (store/run_directory_lock.h; UsageError when another run
  // holds it), then checks it: a fresh run needs a missing or empty workdir (InputError
  // otherwise, naming it), a resume a swarm run there. A fresh run creates the directory;
  // destroyed before its first commit, it removes what it created and nothing else.
  SwarmStore(const config::SwarmConfig& config, bool resume);
  ~SwarmStore();
  SwarmStore(const SwarmStore&) = delete;
  SwarmStore& operator=(const SwarmStore&) = delete;

  // Creates the store (fresh) or opens it and checks that the configuration is the run's own
  // (resume; InputError listing the changed keys otherwise). `cv_model`: the stored learned model
  // that gives the CVs (swarm/learned_projection.h), or null; it is part of the configuration.
  void open(const engines::Engine& engine, const std::vector<std::string>& cv_names,
            const nlohmann::json& cv_model = nullptr);
  // Every committed cycle record, in commit order.
  std::vector<store::CycleRecord> history() const;
  // The stored anchor frame `key` as a configuration shaped like `layout`.
  engines::Configuration anchor_state(const core::FrameKey& key,
                                      const engines::Configuration& layout) const;
  // Cycles committed in the store, by every run of it (0 before the store is open).
  std::int64_t committed_cycles() const;
  // Commits one finished cycle that started from `start_key`; returns the new anchor's key.
  std::optional<core::FrameKey> commit(FinishedCycle& cycle,
                                       const std::optional<core::FrameKey>& start_key);

 private:
  const config::SwarmConfig& config_;
  void release();  // removes what was created (if still set) and drops the lock

  bool resume_;
  std::filesystem::path created_;  // the outermost directory this run created, or empty
  int lock_fd_ = -1;               // the run directory's lock, held while this object lives
  bool committed_ = false;
  std::optional<store::RunStore> store_;
  std::int64_t next_iteration_ = 0;
  double dt_ = 0.0;
};

}  // namespace trails::swarm
