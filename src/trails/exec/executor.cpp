// The reference executor (serial), the shared exception guard, the local-executor choice and
// run_ordered. SerialExecutor defines the semantics every other executor must reproduce: each
// task runs through run_guarded, on_result is called once per task on the calling thread.
#include "trails/exec/executor.h"

#include <algorithm>
#include <exception>
#include <string>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::exec {
namespace {

class SerialExecutor final : public Executor {
 public:
  explicit SerialExecutor(const engines::Engine& engine) : instance_(engine.make_instance()) {}

  void run_batch(const std::vector<engines::SegmentTask>& tasks,
                 const ResultCallback& on_result) override {
    for (const engines::SegmentTask& task : tasks) on_result(run_guarded(*instance_, task));
  }
  int workers() const override { return 1; }

 private:
  std::unique_ptr<engines::EngineInstance> instance_;  // warm across tasks and batches
};

engines::SegmentResult failed(const engines::SegmentTask& task, std::string error) {
  engines::SegmentResult result;
  result.task_id = task.task_id;
  result.status = engines::SegmentStatus::Failed;
  result.error = fmt::format("walker {} of iteration {}: engine raised: {}", task.walker,
                             task.iteration, error);
  return result;
}

}  // namespace

engines::SegmentResult run_guarded(engines::EngineInstance& instance,
                                   const engines::SegmentTask& task) {
  try {
    engines::SegmentResult result = instance.run(task);
    result.task_id = task.task_id;  // an engine cannot break reassembly by forgetting it
    return result;
  } catch (const core::Error& error) {
    return failed(task, error.describe());
  } catch (const std::exception& error) {
    return failed(task, error.what());
  } catch (...) {
    return failed(task, "unknown exception (not derived from std::exception)");
  }
}

std::unique_ptr<Executor> make_serial_executor(const engines::Engine& engine) {
  return std::make_unique<SerialExecutor>(engine);
}

std::unique_ptr<Executor> make_local_executor(const engines::Engine& engine, int max_workers) {
  if (max_workers <= 1) return make_serial_executor(engine);
  return make_thread_pool_executor(engine, max_workers);
}

std::vector<engines::SegmentResult> run_ordered(Executor& executor,
                                                const std::vector<engines::SegmentTask>& tasks) {
  std::vector<engines::SegmentResult> results;
  results.reserve(tasks.size());
  executor.run_batch(tasks, [&](engines::SegmentResult&& r) { results.push_back(std::move(r)); });
  std::stable_sort(results.begin(), results.end(),
                   [](const auto& a, const auto& b) { return a.task_id < b.task_id; });
  return results;
}

}  // namespace trails::exec
