#include "trails/swarm/cycle_committer.h"

namespace trails::swarm {

CycleCommitter::CycleCommitter(SwarmStore& store,
                               std::vector<std::optional<core::FrameKey>> anchor_keys,
                               std::int64_t committed, OnCommit on_commit)
    : store_(store),
      anchor_keys_(std::move(anchor_keys)),
      committed_(committed),
      on_commit_(std::move(on_commit)),
      thread_([this] { run(); }) {}

CycleCommitter::~CycleCommitter() {
  {
    const std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void CycleCommitter::push(FinishedCycle cycle) {
  {
    const std::lock_guard lock(mutex_);
    queue_.push_back(std::move(cycle));
  }
  wake_.notify_one();
}

void CycleCommitter::check() {
  const std::lock_guard lock(mutex_);
  if (error_) std::rethrow_exception(error_);
}

void CycleCommitter::finish() {
  std::unique_lock lock(mutex_);
  drained_.wait(lock, [this] { return error_ || (queue_.empty() && !busy_); });
  if (error_) std::rethrow_exception(error_);
}

void CycleCommitter::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty() || error_) {
      if (stop_) return;
      queue_.clear();  // after a failure nothing more is committed
      drained_.notify_all();
      continue;
    }
    FinishedCycle cycle = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    try {
      auto& key = anchor_keys_.at(static_cast<std::size_t>(cycle.record.chain));
      key = store_.commit(cycle, key);
      ++committed_;
      on_commit_(cycle, committed_);
    } catch (...) {
      lock.lock();
      error_ = std::current_exception();
      busy_ = false;
      drained_.notify_all();
      continue;
    }
    lock.lock();
    busy_ = false;
    if (queue_.empty()) drained_.notify_all();
  }
}

}  // namespace trails::swarm
