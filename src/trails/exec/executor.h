// Executor: runs a batch of SegmentTasks on EngineInstances and hands each result back as it
// finishes. SerialExecutor defines the semantics; ThreadPoolExecutor runs up to max_workers
// segments at once, one warm EngineInstance per worker, kept across batches. The caller
// reassembles results by task_id, so the outcome never depends on completion order.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "trails/engines/engine.h"

namespace trails::exec {

using ResultCallback = std::function<void(engines::SegmentResult&&)>;

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs every task; calls on_result (from the calling thread, serialised) as each completes.
  // Returns once all tasks are done. Engine exceptions become Failed results, never escape.
  virtual void run_batch(const std::vector<engines::SegmentTask>& tasks,
                         const ResultCallback& on_result) = 0;
  virtual int workers() const = 0;
};

std::unique_ptr<Executor> make_serial_executor(const engines::Engine& engine);
std::unique_ptr<Executor> make_thread_pool_executor(const engines::Engine& engine, int max_workers);
// max_workers <= 1 -> serial, else a thread pool.
std::unique_ptr<Executor> make_local_executor(const engines::Engine& engine, int max_workers);

// Runs one task on an instance, turning any exception from run() into a Failed result that
// carries the task_id and the exception text. Every executor (and a future worker process)
// runs tasks through this, so "exceptions never escape" holds everywhere.
engines::SegmentResult run_guarded(engines::EngineInstance& instance,
                                   const engines::SegmentTask& task);

// Runs a batch and returns the results ordered by task_id.
std::vector<engines::SegmentResult> run_ordered(Executor& executor,
                                                const std::vector<engines::SegmentTask>& tasks);

}  // namespace trails::exec
