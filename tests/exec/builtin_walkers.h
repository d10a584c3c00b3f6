// Shared by the out-of-process executor tests (test_process_executor.cpp, mpi/): the built-in
// engine they ship to their workers, walkers of uneven lengths (so completion order scrambles)
// with Trails-MD seeds, and the bitwise comparison of a result with the serial reference.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "trails/core/error.h"
#include "trails/exec/executor.h"

#include "trails/config/engine_spec.h"
#include "trails/core/seeds.h"
#include "trails/engines/engine.h"

namespace trails::exec::testing {

inline config::BuiltinEngineConfig builtin_config() {
  config::BuiltinEngineConfig c;
  c.potential = config::Potential::MullerBrown;
  c.integrator = config::Integrator::Langevin;
  c.dt = 1e-4;
  return c;
}

inline std::vector<engines::SegmentTask> walkers(const engines::Engine& engine, int n,
                                                 std::int64_t iteration) {
  std::vector<engines::SegmentTask> tasks;
  for (int w = 0; w < n; ++w) {
    engines::SegmentTask t;
    t.task_id = w;
    t.iteration = iteration;
    t.walker = w;
    t.start = engine.default_start();
    t.steps = 200 + 10 * w;
    t.stride = 10;
    t.seed =
        core::walker_seed(42, static_cast<std::uint64_t>(iteration), static_cast<std::uint64_t>(w));
    tasks.push_back(t);
  }
  return tasks;
}

inline void expect_same(const engines::SegmentResult& actual,
                        const engines::SegmentResult& expected) {
  ASSERT_TRUE(actual.ok()) << actual.error;
  EXPECT_EQ(actual.task_id, expected.task_id);
  EXPECT_EQ(actual.n_frames, expected.n_frames);
  EXPECT_EQ(actual.frames, expected.frames) << "task " << actual.task_id;
  EXPECT_EQ(actual.final_state.positions, expected.final_state.positions);
  EXPECT_EQ(actual.final_state.velocities, expected.final_state.velocities);
  EXPECT_EQ(actual.platform, expected.platform);
}

// The streaming half of the contract (executor.h) on an idle executor: the empty answer when
// idle, every result of 5 walkers once, counts back to zero, slot i at index i, shutdown
// idempotent, submit after shutdown refused.
inline void expect_streaming_contract(Executor& executor, const engines::Engine& engine) {
  EXPECT_FALSE(executor.next_completed().has_value());  // nothing in flight: at once
  const auto tasks = walkers(engine, 5, 0);
  for (const auto& t : tasks) executor.submit(t);
  std::vector<std::int64_t> ids;
  while (auto r = executor.next_completed()) {
    EXPECT_TRUE(r->ok()) << r->error;
    ids.push_back(r->task_id);
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(executor.in_flight(), 0u);
  EXPECT_EQ(executor.results_waiting(), 0u);
  for (std::size_t i = 0; i < executor.slots().size(); ++i) {
    EXPECT_EQ(executor.slots()[i].index, static_cast<int>(i));
  }
  executor.shutdown();
  executor.shutdown();
  EXPECT_THROW(executor.submit(tasks[0]), core::InternalError);
}

}  // namespace trails::exec::testing
