// Commits finished swarm cycles on a thread of its own (private to the swarm module), so the
// driver keeps handing tasks to free slots while a commit's fsyncs run: a slot that frees during
// a commit never waits for the driver. Cycles are committed in the order they are pushed (the
// driver pushes in (cycle, chain) order); each chain's stored anchor key is tracked here. A
// failed commit is rethrown on the driver's thread by check() or finish().
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "trails/swarm/chain_cycle.h"
#include "trails/swarm/swarm_store.h"

namespace trails::swarm {

class CycleCommitter {
 public:
  // `on_commit(cycle, cycles committed in all)` runs on the committer thread after each commit.
  using OnCommit = std::function<void(const FinishedCycle&, std::int64_t)>;
  // `anchor_keys`: each chain's committed anchor (from the store on resume); `committed`: the
  // cycles committed before this run.
  CycleCommitter(SwarmStore& store, std::vector<std::optional<core::FrameKey>> anchor_keys,
                 std::int64_t committed, OnCommit on_commit);
  ~CycleCommitter();  // commits what was pushed (best effort), then joins
  CycleCommitter(const CycleCommitter&) = delete;
  CycleCommitter& operator=(const CycleCommitter&) = delete;

  void push(FinishedCycle cycle);
  // Rethrows a commit failure, if one happened.
  void check();
  // Waits until everything pushed is committed; rethrows a failure.
  void finish();

 private:
  void run();

  SwarmStore& store_;
  std::vector<std::optional<core::FrameKey>> anchor_keys_;
  std::int64_t committed_;
  OnCommit on_commit_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable drained_;
  std::deque<FinishedCycle> queue_;
  bool busy_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace trails::swarm
