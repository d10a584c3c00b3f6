// The built-in engine's segment contract: frame convention, seeds as the only noise source
// (fresh vs warm instance bitwise, seeds differ), the integrator equations reproduced by hand,
// failure reporting (non-finite coordinates, invalid tasks), final state, synthetic cost, and
// the harmonic and biased-walk oracles.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "trails/core/error.h"
#include "trails/core/rng.h"
#include "trails/engines/builtin/builtin_engine.h"

namespace trails::engines::builtin {
namespace {

config::BuiltinEngineConfig make_config(config::Potential potential, config::Integrator integrator,
                                        double dt = 1e-3) {
  config::BuiltinEngineConfig c;
  c.potential = potential;
  c.integrator = integrator;
  c.dt = dt;
  c.kT = 1.0;
  return c;
}

SegmentTask make_task(const Engine& engine, std::uint64_t seed, std::int64_t steps = 100,
                      std::int64_t stride = 10) {
  SegmentTask task;
  task.task_id = 7;
  task.iteration = 3;
  task.walker = 5;
  task.start = engine.default_start();
  task.steps = steps;
  task.stride = stride;
  task.seed = seed;
  return task;
}

void expect_bitwise_equal(const SegmentResult& a, const SegmentResult& b) {
  ASSERT_EQ(a.status, b.status);
  ASSERT_EQ(a.n_frames, b.n_frames);
  ASSERT_EQ(a.frames.size(), b.frames.size());
  for (std::size_t i = 0; i < a.frames.size(); ++i) ASSERT_EQ(a.frames[i], b.frames[i]) << i;
  EXPECT_EQ(a.final_state.positions, b.final_state.positions);
  EXPECT_EQ(a.final_state.velocities, b.final_state.velocities);
}

class EveryIntegrator : public ::testing::TestWithParam<config::Integrator> {};
INSTANTIATE_TEST_SUITE_P(Builtin, EveryIntegrator,
                         ::testing::Values(config::Integrator::Overdamped,
                                           config::Integrator::Langevin));

TEST_P(EveryIntegrator, FramesAreTakenAfterEveryStrideStepsWithoutTimeZero) {
  BuiltinEngine engine(make_config(config::Potential::MullerBrown, GetParam(), 1e-5));
  const SegmentTask task = make_task(engine, 11, 100, 10);
  const SegmentResult full = engine.make_instance()->run(task);
  ASSERT_TRUE(full.ok()) << full.error;
  EXPECT_EQ(full.task_id, 7);
  EXPECT_EQ(full.n_frames, 10);
  EXPECT_EQ(full.n_atoms, 1);
  EXPECT_EQ(full.spatial_dim, 2);
  ASSERT_EQ(full.frames.size(), 20u);
  // Frame k is the state after step 10(k+1): a segment of that length ends exactly there.
  for (std::int64_t k = 0; k < 10; ++k) {
    SegmentTask prefix = task;
    prefix.steps = 10 * (k + 1);
    const SegmentResult part = engine.make_instance()->run(prefix);
    ASSERT_TRUE(part.ok());
    EXPECT_EQ(part.final_state.positions[0], full.frames[2 * k]);
    EXPECT_EQ(part.final_state.positions[1], full.frames[2 * k + 1]);
  }
  EXPECT_EQ(full.final_state.positions,
            std::vector<double>(full.frames.end() - 2, full.frames.end()));
  EXPECT_EQ(full.platform, "builtin");
  EXPECT_FALSE(full.host.empty());
  EXPECT_GE(full.startup_s, 0.0);
  EXPECT_GE(full.integrate_s, 0.0);
}

TEST_P(EveryIntegrator, WarmInstanceEqualsFreshInstanceBitwise) {
  BuiltinEngine engine(make_config(config::Potential::ThreeWell, GetParam(), 1e-3));
  auto warm = engine.make_instance();
  // Dirty the warm instance with a different task first (other seed, start and length).
  SegmentTask other = make_task(engine, 999, 333, 3);
  other.start.positions = {0.5, 1.5};
  ASSERT_TRUE(warm->run(other).ok());
  const SegmentTask task = make_task(engine, 42, 500, 5);
  const SegmentResult a = warm->run(task);
  const SegmentResult b = engine.make_instance()->run(task);
  const SegmentResult c = warm->run(task);
  expect_bitwise_equal(a, b);
  expect_bitwise_equal(a, c);
}

TEST_P(EveryIntegrator, DifferentSeedsGiveDifferentTrajectories) {
  BuiltinEngine engine(make_config(config::Potential::DoubleWell, GetParam()));
  auto instance = engine.make_instance();
  const SegmentResult a = instance->run(make_task(engine, 1));
  const SegmentResult b = instance->run(make_task(engine, 2));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a.frames, b.frames);
}

TEST(BuiltinEngine, OverdampedStepFollowsEulerMaruyama) {
  auto c = make_config(config::Potential::DoubleWell, config::Integrator::Overdamped, 0.01);
  c.kT = 0.7;
  c.friction = 2.0;
  BuiltinEngine engine(c);
  SegmentTask task = make_task(engine, 123, 2, 1);
  task.start.positions = {0.3};
  const SegmentResult r = engine.make_instance()->run(task);
  ASSERT_TRUE(r.ok());
  core::Rng rng(123);
  double x = 0.3;
  for (int step = 0; step < 2; ++step) {
    const double grad = 4.0 * x * (x * x - 1.0);
    x = x - (c.dt / c.friction) * grad + std::sqrt(2.0 * c.kT * c.dt / c.friction) * rng.normal();
    EXPECT_DOUBLE_EQ(r.frames[static_cast<std::size_t>(step)], x);
  }
  EXPECT_TRUE(r.final_state.velocities.empty());
}

TEST(BuiltinEngine, LangevinStepFollowsBaoabWithVelocitiesDrawnFirst) {
  auto c = make_config(config::Potential::DoubleWell, config::Integrator::Langevin, 0.01);
  c.kT = 0.7;
  c.friction = 2.0;
  c.mass = 1.5;
  BuiltinEngine engine(c);
  SegmentTask task = make_task(engine, 77, 3, 1);
  task.start.positions = {0.3};
  const SegmentResult r = engine.make_instance()->run(task);
  ASSERT_TRUE(r.ok());
  core::Rng rng(77);
  const auto force = [](double x) { return -4.0 * x * (x * x - 1.0); };
  const double c1 = std::exp(-c.friction * c.dt);
  const double c2 = std::sqrt((1.0 - c1 * c1) * c.kT / c.mass);
  double x = 0.3;
  double v = std::sqrt(c.kT / c.mass) * rng.normal();
  for (int step = 0; step < 3; ++step) {
    v += 0.5 * c.dt * force(x) / c.mass;
    x += 0.5 * c.dt * v;
    v = c1 * v + c2 * rng.normal();
    x += 0.5 * c.dt * v;
    v += 0.5 * c.dt * force(x) / c.mass;
    EXPECT_NEAR(r.frames[static_cast<std::size_t>(step)], x, 1e-14);
  }
  ASSERT_EQ(r.final_state.velocities.size(), 1u);
  EXPECT_NEAR(r.final_state.velocities[0], v, 1e-14);
}

TEST(BuiltinEngine, GivenVelocitiesAreUsedInsteadOfFreshDraws) {
  BuiltinEngine engine(make_config(config::Potential::Harmonic, config::Integrator::Langevin));
  SegmentTask task = make_task(engine, 5, 10, 10);
  task.start.velocities = {0.25, -0.5};
  const SegmentResult given = engine.make_instance()->run(task);
  task.start.velocities.clear();
  const SegmentResult drawn = engine.make_instance()->run(task);
  ASSERT_TRUE(given.ok() && drawn.ok());
  EXPECT_NE(given.final_state.positions, drawn.final_state.positions);
  // Continuing from a saved end state is deterministic: same state in, same state out.
  SegmentTask next = task;
  next.start = given.final_state;
  expect_bitwise_equal(engine.make_instance()->run(next), engine.make_instance()->run(next));
}

TEST(BuiltinEngine, NonFiniteCoordinatesFailWithAReadableError) {
  // Müller–Brown with dt = 1 overshoots into the exploding exp(0.7 x^2) term within a few steps.
  BuiltinEngine engine(
      make_config(config::Potential::MullerBrown, config::Integrator::Overdamped, 1.0));
  const SegmentResult r = engine.make_instance()->run(make_task(engine, 3, 1000, 10));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.n_frames, 0);
  EXPECT_TRUE(r.frames.empty());
  EXPECT_NE(r.error.find("walker 5 of iteration 3: coordinates became non-finite at step "),
            std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("reduce engine.dt (currently 1) or check the start point"),
            std::string::npos)
      << r.error;
}

TEST(BuiltinEngine, InvalidTasksFailBeforeTheFirstStep) {
  BuiltinEngine engine(make_config(config::Potential::MullerBrown, config::Integrator::Langevin));
  auto instance = engine.make_instance();
  const auto error_of = [&](SegmentTask task) {
    const SegmentResult r = instance->run(task);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.task_id, task.task_id);
    return r.error;
  };
  SegmentTask t = make_task(engine, 1);
  t.steps = 0;
  EXPECT_NE(error_of(t).find("steps must be > 0"), std::string::npos);
  t = make_task(engine, 1);
  t.stride = 0;
  EXPECT_NE(error_of(t).find("stride must be > 0"), std::string::npos);
  t = make_task(engine, 1);
  t.start.positions = {1.0, 2.0, 3.0};
  EXPECT_NE(error_of(t).find("start point has 3 coordinates but the muller_brown potential is "
                             "2-dimensional"),
            std::string::npos);
  t = make_task(engine, 1);
  t.start.positions[1] = std::nan("");
  EXPECT_NE(error_of(t).find("non-finite"), std::string::npos);
  t = make_task(engine, 1);
  t.start.velocities = {1.0};
  EXPECT_NE(error_of(t).find("start velocities have 1 components"), std::string::npos);
  // The instance is still healthy afterwards.
  EXPECT_TRUE(instance->run(make_task(engine, 1)).ok());
}

TEST(BuiltinEngine, InvalidEngineConfigurationThrows) {
  auto c = make_config(config::Potential::DoubleWell, config::Integrator::Overdamped);
  c.dt = 0.0;
  EXPECT_THROW(BuiltinEngine{c}, core::ConfigError);
  c = make_config(config::Potential::DoubleWell, config::Integrator::Overdamped);
  c.kT = -1.0;
  EXPECT_THROW(BuiltinEngine{c}, core::ConfigError);
  c = make_config(config::Potential::DoubleWell, config::Integrator::Overdamped);
  c.synthetic_cost_ms = -5.0;
  EXPECT_THROW(BuiltinEngine{c}, core::ConfigError);
  c = make_config(config::Potential::DoubleWell, config::Integrator::Overdamped);
  c.synthetic_startup_ms = -1.0;
  EXPECT_THROW(BuiltinEngine{c}, core::ConfigError);
}

// Not a timing assertion: a sleep lasts at least its length, whatever the machine's load. The
// start-up sleep counts as start-up (trails advise reads it there), the cost as integration.
TEST(BuiltinEngine, SyntheticCostsAreSleptWhereTheyAreCounted) {
  auto c = make_config(config::Potential::MullerBrown, config::Integrator::Overdamped, 1e-5);
  c.synthetic_cost_ms = 20.0;
  c.synthetic_startup_ms = 30.0;
  BuiltinEngine engine(c);
  const SegmentResult r = engine.make_instance()->run(make_task(engine, 1, 10, 1));
  ASSERT_TRUE(r.ok());
  EXPECT_GE(r.integrate_s, 0.020);
  EXPECT_GE(r.startup_s, 0.030);
}

TEST(BuiltinEngine, DefaultStartAndLayout) {
  BuiltinEngine engine(make_config(config::Potential::MullerBrown, config::Integrator::Overdamped));
  EXPECT_EQ(engine.name(), "builtin");
  EXPECT_EQ(engine.n_atoms(), 1);
  EXPECT_EQ(engine.spatial_dim(), 2);
  const Configuration start = engine.default_start();
  EXPECT_EQ(start.n_atoms, 1);
  EXPECT_EQ(start.spatial_dim, 2);
  EXPECT_EQ(start.positions, (std::vector<double>{-0.558, 1.442}));
  EXPECT_TRUE(start.velocities.empty());
}

// Exact oracle: V = |x|^2/2 has per-axis variance kT (and mean 0) under both integrators.
TEST_P(EveryIntegrator, HarmonicVarianceIsKtPerAxis) {
  auto c = make_config(config::Potential::Harmonic, GetParam(), 0.01);
  c.dimension = 3;
  c.kT = 0.6;
  BuiltinEngine engine(c);
  // 4e6 steps of dt 0.01 = 4e4 time units; the correlation time is ~1, so about 2e4 effectively
  // independent samples per axis: the standard error of the variance is ~0.6*sqrt(2/2e4) ~ 0.006.
  const SegmentResult r = engine.make_instance()->run(make_task(engine, 8, 4'000'000, 20));
  ASSERT_TRUE(r.ok());
  for (std::size_t axis = 0; axis < 3; ++axis) {
    double sum = 0.0, sum_sq = 0.0;
    for (std::int64_t f = 0; f < r.n_frames; ++f) {
      const double x = r.frames[static_cast<std::size_t>(f) * 3 + axis];
      sum += x;
      sum_sq += x * x;
    }
    const double mean = sum / static_cast<double>(r.n_frames);
    const double variance = sum_sq / static_cast<double>(r.n_frames) - mean * mean;
    EXPECT_NEAR(mean, 0.0, 0.03) << "axis " << axis;
    EXPECT_NEAR(variance, c.kT, 0.03) << "axis " << axis;
  }
}

TEST(BuiltinEngine, BiasedWalkDriftsByMinusPointThreePerStep) {
  BuiltinEngine engine(make_config(config::Potential::BiasedWalk, config::Integrator::Overdamped));
  SegmentTask task = make_task(engine, 9, 1'000'000, 1000);
  task.start.positions = {1e6};  // far from the wall at 0, so max(0, .) never acts
  const SegmentResult r = engine.make_instance()->run(task);
  ASSERT_TRUE(r.ok());
  // Mean step = (x_end - x_start)/steps; its standard error is 1/sqrt(1e6) = 0.001.
  const double mean_step = (r.final_state.positions[0] - 1e6) / 1e6;
  EXPECT_NEAR(mean_step, -0.30, 0.005);
  EXPECT_TRUE(r.final_state.velocities.empty());
}

TEST(BuiltinEngine, BiasedWalkReflectsAtZeroAndIgnoresTheIntegrator) {
  BuiltinEngine overdamped(
      make_config(config::Potential::BiasedWalk, config::Integrator::Overdamped));
  BuiltinEngine langevin(make_config(config::Potential::BiasedWalk, config::Integrator::Langevin));
  const SegmentTask task = make_task(overdamped, 4, 10'000, 1);
  const SegmentResult a = overdamped.make_instance()->run(task);
  const SegmentResult b = langevin.make_instance()->run(task);
  expect_bitwise_equal(a, b);
  const auto zeros = std::count(a.frames.begin(), a.frames.end(), 0.0);
  EXPECT_GT(zeros, 100);
  EXPECT_TRUE(std::all_of(a.frames.begin(), a.frames.end(), [](double x) { return x >= 0.0; }));
}

}  // namespace
}  // namespace trails::engines::builtin
