#include "builtin_walkers.h"

#include <gtest/gtest.h>

#include "trails/core/seeds.h"

namespace trails::test_support {

config::BuiltinEngineConfig builtin_config() {
  config::BuiltinEngineConfig c;
  c.potential = config::Potential::MullerBrown;
  c.integrator = config::Integrator::Langevin;
  c.dt = 1e-4;
  return c;
}

std::vector<engines::SegmentTask> walkers(const engines::Engine& engine, int n,
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

void expect_same(const engines::SegmentResult& actual, const engines::SegmentResult& expected) {
  ASSERT_TRUE(actual.ok()) << actual.error;
  EXPECT_EQ(actual.task_id, expected.task_id);
  EXPECT_EQ(actual.n_frames, expected.n_frames);
  EXPECT_EQ(actual.frames, expected.frames) << "task " << actual.task_id;
  EXPECT_EQ(actual.final_state.positions, expected.final_state.positions);
  EXPECT_EQ(actual.final_state.velocities, expected.final_state.velocities);
  EXPECT_EQ(actual.platform, expected.platform);
}

}  // namespace trails::test_support
