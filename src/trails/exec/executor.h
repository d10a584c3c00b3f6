// Executor: runs SegmentTasks on warm EngineInstances and streams the results back as they
// finish (docs/execution.md). An executor owns its slots and one EngineInstance per slot, made
// once with Engine::make_instance(slot) and kept warm across tasks. submit() hands one task over
// (at most max_in_flight() unfinished at once), next_completed() takes results in completion
// order; every result carries its task's task_id, so callers reassemble by task_id and the
// outcome never depends on completion order or on which slot ran a task. SerialExecutor is the
// reference semantics. Engine exceptions never escape: they become Failed results.
// Threads: submit and next_completed may be called from two different threads (one producer,
// one consumer); the callbacks of run_batch run on its calling thread.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "trails/engines/engine.h"

namespace trails::exec {

using ResultCallback = std::function<void(engines::SegmentResult&&)>;

class Executor {
 public:
  // Implementations call shutdown(): queued tasks no slot has started are dropped, running ones
  // finish, results not taken are discarded, worker threads are joined.
  virtual ~Executor() = default;

  // Hands one task over. Blocks while max_in_flight() tasks are in flight (submitted and not
  // yet finished), so a single thread that submits and then takes results can never deadlock.
  // The serial executor runs the task inside submit. Throws InternalError after shutdown().
  virtual void submit(engines::SegmentTask task) = 0;
  // The next finished result (completion order), blocking until one is ready; std::nullopt at
  // once when nothing is in flight and no result is waiting.
  virtual std::optional<engines::SegmentResult> next_completed() = 0;
  virtual std::size_t in_flight() const = 0;        // submitted, not finished (queued or running)
  virtual std::size_t results_waiting() const = 0;  // finished, not yet taken by next_completed
  virtual std::size_t max_in_flight() const = 0;
  // The slots this executor owns, index i at position i; one warm instance each.
  virtual const std::vector<engines::Slot>& slots() const = 0;
  // Idempotent; the destructor calls it.
  virtual void shutdown() = 0;

  int workers() const { return static_cast<int>(slots().size()); }
  // The free run_batch below, kept as a member for callers written against the batch API.
  void run_batch(const std::vector<engines::SegmentTask>& tasks, const ResultCallback& on_result);
};

// The reference: one slot; submit runs the task at once on the calling thread; max_in_flight 1.
std::unique_ptr<Executor> make_serial_executor(const engines::Engine& engine);
// A pool of persistent threads, one per slot, each owning its warm instance; a slot that
// finishes takes the next queued task at once. max_in_flight 0 means twice the slot count.
// Throws ConfigError for workers < 1.
std::unique_ptr<Executor> make_thread_pool_executor(const engines::Engine& engine, int workers,
                                                    std::size_t max_in_flight = 0);
// The same pool over given slots (e.g. devices × workers per device); slot i must have index i.
std::unique_ptr<Executor> make_thread_pool_executor(const engines::Engine& engine,
                                                    std::vector<engines::Slot> slots,
                                                    std::size_t max_in_flight = 0);
// Slots 0..workers-1 without devices (worker i on slot i). Throws ConfigError for workers < 1
// naming spawning.max_workers.
std::vector<engines::Slot> numbered_slots(int workers);
// The same pool over instances the caller made, instance i serving slot i (the process
// executor's remote instances, process_executor.h).
std::unique_ptr<Executor> make_thread_pool_executor(
    std::vector<std::unique_ptr<engines::EngineInstance>> instances,
    std::vector<engines::Slot> slots, std::size_t max_in_flight = 0);
// max_workers <= 1 -> serial, else a thread pool of max_workers slots with at most max_in_flight
// tasks in flight (0: twice the slot count). A driver that submits a whole batch passes the
// batch size: each submit beyond the bound would wait for a slot, a wake-up per task.
std::unique_ptr<Executor> make_local_executor(const engines::Engine& engine, int max_workers,
                                              std::size_t max_in_flight = 0);

// Runs one task on an instance, turning any exception from run() into a Failed result that
// carries the task_id and the exception text. Every executor (and a future worker process)
// runs tasks through this, so "exceptions never escape" holds everywhere.
engines::SegmentResult run_guarded(engines::EngineInstance& instance,
                                   const engines::SegmentTask& task);

// Submits every task and calls on_result (on the calling thread, serialised) as each result
// arrives; returns when all are done. Needs an idle executor (nothing in flight or waiting).
// If on_result throws, no further task is submitted and no further callback is made; the tasks
// already in flight are drained and discarded, then the exception propagates.
void run_batch(Executor& executor, const std::vector<engines::SegmentTask>& tasks,
               const ResultCallback& on_result);

// Runs a batch and returns the results ordered by task_id.
std::vector<engines::SegmentResult> run_ordered(Executor& executor,
                                                const std::vector<engines::SegmentTask>& tasks);

// run_ordered() that also streams: `in_order` is called with each result (on the calling
// thread) as soon as it and every task with a smaller task_id have completed, so a consumer
// sees task order whatever the completion order while later tasks still run (the campaign's
// pending shard, docs/file-formats.md). Task ids must be distinct. Exceptions as in run_batch.
// `arrived`, when given, is called first with every result in completion order (progress).
using InOrderCallback = std::function<void(const engines::SegmentResult&)>;
std::vector<engines::SegmentResult> run_in_order(Executor& executor,
                                                 const std::vector<engines::SegmentTask>& tasks,
                                                 const InOrderCallback& in_order,
                                                 const InOrderCallback& arrived = {});

}  // namespace trails::exec
