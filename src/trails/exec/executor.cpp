// The shared exception guard, the batch drivers over the streaming interface (run_batch,
// run_ordered) and the local-executor choice. The executors themselves live in
// serial_executor.cpp (the reference semantics) and thread_pool_executor.cpp.
#include "trails/exec/executor.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <string>

#include "trails/core/error.h"
#include "trails/core/signals.h"
#include "trails/engines/frame_check.h"

namespace trails::exec {
namespace {

engines::SegmentResult failed(const engines::SegmentTask& task, std::string error) {
  engines::SegmentResult result;
  result.task_id = task.task_id;
  result.status = engines::SegmentStatus::Failed;
  result.error = fmt::format("walker {} of iteration {}: engine raised: {}", task.walker,
                             task.iteration, error);
  return result;
}

engines::SegmentResult stopped(const engines::SegmentTask& task) {
  engines::SegmentResult result;
  result.task_id = task.task_id;
  result.status = engines::SegmentStatus::Failed;
  result.error = fmt::format("walker {} of iteration {}: stopped by {} before it finished",
                             task.walker, task.iteration, core::signal_name(core::stop_signal()));
  return result;
}

}  // namespace

engines::SegmentResult run_guarded(engines::EngineInstance& instance,
                                   const engines::SegmentTask& task) {
  // After a stop signal nothing new starts: the walker is run again on --resume
  // (docs/reliability.md, "Signals, child processes and concurrent runs").
  if (core::stop_requested()) return stopped(task);
  // The one rule on non-finite values, for every engine (docs/reliability.md, "Non-finite
  // values"): a walker that starts or ends non-finite fails alone; the failure policy decides.
  if (const auto why = engines::non_finite_start(task.start)) {
    engines::SegmentResult result;
    result.task_id = task.task_id;
    result.error = fmt::format("walker {} of iteration {}: {}; the segment was not run",
                               task.walker, task.iteration, *why);
    return result;
  }
  try {
    engines::SegmentResult result = instance.run(task);
    result.task_id = task.task_id;  // an engine cannot break reassembly by forgetting it
    engines::fail_if_non_finite(task, result);
    return result;
  } catch (const core::Interrupted&) {  // a stop signal ended it (an engine or its program)
    return stopped(task);
  } catch (const core::Error& error) {
    return failed(task, error.describe());
  } catch (const std::exception& error) {
    return failed(task, error.what());
  } catch (...) {
    return failed(task, "unknown exception (not derived from std::exception)");
  }
}

void run_batch(Executor& executor, const std::vector<engines::SegmentTask>& tasks,
               const ResultCallback& on_result) {
  TRAILS_CHECK(executor.in_flight() == 0 && executor.results_waiting() == 0,
               "run_batch needs an idle executor: results of earlier submits would join the batch");
  std::exception_ptr callback_error;
  const auto deliver = [&](engines::SegmentResult&& result) {
    if (callback_error) return;  // drain without calling back again
    try {
      on_result(std::move(result));
    } catch (...) {
      callback_error = std::current_exception();
    }
  };
  for (const engines::SegmentTask& task : tasks) {
    // Results that are ready go out before the next submit, so callbacks stream.
    while (executor.results_waiting() > 0) deliver(std::move(*executor.next_completed()));
    if (callback_error) break;
    executor.submit(task);  // blocks only while max_in_flight tasks are unfinished
  }
  while (std::optional<engines::SegmentResult> result = executor.next_completed()) {
    deliver(std::move(*result));
  }
  if (callback_error) std::rethrow_exception(callback_error);
}

void Executor::run_batch(const std::vector<engines::SegmentTask>& tasks,
                         const ResultCallback& on_result) {
  exec::run_batch(*this, tasks, on_result);
}

std::vector<engines::SegmentResult> run_ordered(Executor& executor,
                                                const std::vector<engines::SegmentTask>& tasks) {
  std::vector<engines::SegmentResult> results;
  results.reserve(tasks.size());
  run_batch(executor, tasks, [&](engines::SegmentResult&& r) { results.push_back(std::move(r)); });
  std::stable_sort(results.begin(), results.end(),
                   [](const auto& a, const auto& b) { return a.task_id < b.task_id; });
  return results;
}

std::vector<engines::SegmentResult> run_in_order(Executor& executor,
                                                 const std::vector<engines::SegmentTask>& tasks,
                                                 const InOrderCallback& in_order,
                                                 const InOrderCallback& arrived) {
  std::vector<std::int64_t> ids;
  ids.reserve(tasks.size());
  for (const auto& t : tasks) ids.push_back(t.task_id);
  std::sort(ids.begin(), ids.end());
  TRAILS_CHECK(std::adjacent_find(ids.begin(), ids.end()) == ids.end(), "task ids are distinct");
  std::vector<engines::SegmentResult> results(tasks.size());
  std::vector<char> done(tasks.size(), 0);
  std::size_t next = 0;
  run_batch(executor, tasks, [&](engines::SegmentResult&& r) {
    const auto at = std::lower_bound(ids.begin(), ids.end(), r.task_id);
    TRAILS_CHECK(at != ids.end() && *at == r.task_id, "a result of a task of this batch");
    if (arrived) arrived(r);
    const auto k = static_cast<std::size_t>(at - ids.begin());
    TRAILS_CHECK(done[k] == 0, "one result per task");
    results[k] = std::move(r);
    done[k] = 1;
    for (; next < done.size() && done[next] != 0; ++next) {
      if (in_order) in_order(results[next]);
    }
  });
  return results;
}

std::unique_ptr<Executor> make_local_executor(const engines::Engine& engine, int max_workers,
                                              std::size_t max_in_flight) {
  if (max_workers <= 1) return make_serial_executor(engine);
  return make_thread_pool_executor(engine, max_workers, max_in_flight);
}

}  // namespace trails::exec
