// One test body for every engine (as OpenMM runs one body per platform): the built-in engine
// with each potential and integrator, and OpenMM on the Reference, the CPU and the OpenCL
// platform (PoCL; single and mixed precision, engine.reproducibility: bitwise) with alanine
// dipeptide in vacuum (tests/data/openmm/alad-vacuum). Each case checks: a re-armed
// instance gives bitwise a fresh one's result; same seed -> same bits, different seed ->
// different bits; steps/stride frames and no t=0 frame; the final state has positions (and
// velocities where the dynamics has them); a failing task is Failed with a readable error and
// the instance stays usable, bitwise; the slot an instance is made for does not change the bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>

#include "support/compare.h"
#include "trails/engines/builtin/builtin_engine.h"
#include "trails/engines/openmm/openmm_engine.h"
#include "trails/engines/openmm/prepared_system.h"

namespace trails::engines {
namespace {

struct EngineCase {
  const char* name;
  std::function<std::unique_ptr<Engine>()> make;
  std::int64_t stride;  // a segment is 4 strides (+ half a stride in the remainder case)
  bool has_velocities;  // the dynamics carries velocities into the final state
};

void PrintTo(const EngineCase& c, std::ostream* out) { *out << c.name; }

EngineCase builtin_case(const char* name, config::Potential potential,
                        config::Integrator integrator, double dt) {
  const bool velocities =
      integrator == config::Integrator::Langevin && potential != config::Potential::BiasedWalk;
  return {name,
          [=] {
            config::BuiltinEngineConfig c;
            c.potential = potential;
            c.integrator = integrator;
            c.dt = dt;
            return std::unique_ptr<Engine>(std::make_unique<builtin::BuiltinEngine>(c));
          },
          25, velocities};
}

EngineCase openmm_case(const char* name, const char* platform, const char* precision = "mixed") {
  return {name,
          [=] {
            setenv("OPENMM_CPU_THREADS", "1", 1);
            config::OpenMMEngineConfig c;
            c.platform_name = platform;
            c.precision = precision;
            c.reproducibility = config::Reproducibility::Bitwise;
            c.temperature = 300.0;
            c.dt = 0.002;
            auto prepared = openmm::load_prepared_system(std::filesystem::path(TRAILS_TEST_DATA) /
                                                         "openmm/alad-vacuum");
            return std::unique_ptr<Engine>(
                std::make_unique<openmm::OpenMMEngine>(c, std::move(prepared)));
          },
          25, true};
}

using config::Integrator;
using config::Potential;

std::vector<EngineCase> every_engine() {
  return {
      builtin_case("builtin_muller_brown_langevin", Potential::MullerBrown, Integrator::Langevin,
                   1e-4),
      builtin_case("builtin_muller_brown_overdamped", Potential::MullerBrown,
                   Integrator::Overdamped, 1e-5),
      builtin_case("builtin_double_well_langevin", Potential::DoubleWell, Integrator::Langevin,
                   1e-3),
      builtin_case("builtin_three_well_overdamped", Potential::ThreeWell, Integrator::Overdamped,
                   1e-3),
      builtin_case("builtin_harmonic_langevin", Potential::Harmonic, Integrator::Langevin, 1e-3),
      builtin_case("builtin_biased_walk", Potential::BiasedWalk, Integrator::Overdamped, 1e-3),
      openmm_case("openmm_reference", "Reference"),
      openmm_case("openmm_cpu", "CPU"),
      openmm_case("openmm_opencl_single", "OpenCL", "single"),
      openmm_case("openmm_opencl_mixed", "OpenCL", "mixed"),
  };
}

class EngineConformance : public ::testing::TestWithParam<EngineCase> {
 protected:
  void SetUp() override { engine_ = GetParam().make(); }

  SegmentTask task(std::uint64_t seed, std::int64_t strides = 4) const {
    SegmentTask t;
    t.task_id = static_cast<std::int64_t>(seed) + 1000;
    t.iteration = 2;
    t.walker = 7;
    t.start = engine_->default_start();
    t.stride = GetParam().stride;
    t.steps = strides * t.stride;
    t.seed = seed;
    return t;
  }
  SegmentResult fresh(const SegmentTask& t) const { return engine_->make_instance()->run(t); }

  std::unique_ptr<Engine> engine_;
};

INSTANTIATE_TEST_SUITE_P(Every, EngineConformance, ::testing::ValuesIn(every_engine()),
                         [](const auto& info) { return std::string(info.param.name); });

using test_support::same_bits;

// Everything but timings: the dynamics and where it ran.
void expect_same_bits(const SegmentResult& a, const SegmentResult& b) {
  EXPECT_EQ(a.task_id, b.task_id);
  EXPECT_EQ(a.status, b.status);
  EXPECT_EQ(a.error, b.error);
  EXPECT_EQ(a.n_frames, b.n_frames);
  EXPECT_TRUE(same_bits(a.frames, b.frames));
  EXPECT_TRUE(same_bits(a.frame_boxes, b.frame_boxes));
  EXPECT_TRUE(same_bits(a.final_state.positions, b.final_state.positions));
  EXPECT_TRUE(same_bits(a.final_state.velocities, b.final_state.velocities));
  EXPECT_TRUE(same_bits(a.final_state.box, b.final_state.box));
  EXPECT_EQ(a.recovered, b.recovered);
  EXPECT_EQ(a.platform, b.platform);
  EXPECT_EQ(a.device, b.device);
}

TEST_P(EngineConformance, ARearmedInstanceGivesBitwiseAFreshOnesResult) {
  auto warm = engine_->make_instance();
  const SegmentResult w11 = warm->run(task(11));
  const SegmentResult w22 = warm->run(task(22));  // re-armed with another seed
  const SegmentResult w11_again = warm->run(task(11));
  ASSERT_TRUE(w11.ok() && w22.ok() && w11_again.ok()) << w11.error << w22.error;
  expect_same_bits(w22, fresh(task(22)));
  expect_same_bits(w11_again, fresh(task(11)));
  expect_same_bits(w11, w11_again);
}

TEST_P(EngineConformance, SameSeedSameBitsDifferentSeedDifferentBits) {
  const SegmentResult a = fresh(task(5));
  const SegmentResult b = fresh(task(5));
  const SegmentResult c = fresh(task(6));
  ASSERT_TRUE(a.ok() && b.ok() && c.ok()) << a.error << c.error;
  expect_same_bits(a, b);
  EXPECT_FALSE(same_bits(a.frames, c.frames));
  EXPECT_FALSE(same_bits(a.final_state.positions, c.final_state.positions));
}

TEST_P(EngineConformance, FramesAreStepsOverStrideWithoutTheStartFrame) {
  const std::size_t per_frame =
      static_cast<std::size_t>(engine_->n_atoms() * engine_->spatial_dim());
  const SegmentTask t = task(3);
  const SegmentResult r = fresh(t);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.task_id, t.task_id);
  EXPECT_EQ(r.n_frames, 4);
  ASSERT_EQ(r.frames.size(), 4 * per_frame);
  // The first frame is the state after `stride` steps, not the start; the last is the end.
  EXPECT_FALSE(same_bits({r.frames.begin(), r.frames.begin() + static_cast<long>(per_frame)},
                         t.start.positions));
  EXPECT_TRUE(same_bits({r.frames.end() - static_cast<long>(per_frame), r.frames.end()},
                        r.final_state.positions));
  // A remainder of half a stride is integrated but gives no frame.
  SegmentTask longer = t;
  longer.steps += t.stride / 2;
  const SegmentResult l = fresh(longer);
  ASSERT_TRUE(l.ok()) << l.error;
  EXPECT_EQ(l.n_frames, 4);
  EXPECT_EQ(l.frames.size(), 4 * per_frame);
  EXPECT_TRUE(same_bits(l.frames, r.frames));  // the same noise up to the fourth frame
}

TEST_P(EngineConformance, FinalStateHasPositionsAndVelocities) {
  const SegmentResult r = fresh(task(8));
  ASSERT_TRUE(r.ok()) << r.error;
  const auto n = static_cast<std::size_t>(engine_->n_atoms() * engine_->spatial_dim());
  EXPECT_EQ(r.n_atoms, engine_->n_atoms());
  EXPECT_EQ(r.spatial_dim, engine_->spatial_dim());
  EXPECT_EQ(r.final_state.n_atoms, engine_->n_atoms());
  EXPECT_EQ(r.final_state.spatial_dim, engine_->spatial_dim());
  ASSERT_EQ(r.final_state.positions.size(), n);
  EXPECT_EQ(r.final_state.velocities.size(), GetParam().has_velocities ? n : 0u);
  for (double x : r.final_state.positions) EXPECT_TRUE(std::isfinite(x));
  for (double v : r.final_state.velocities) EXPECT_TRUE(std::isfinite(v));
  EXPECT_FALSE(r.platform.empty());
  EXPECT_FALSE(r.host.empty());
}

TEST_P(EngineConformance, AFailingTaskIsFailedReadablyAndTheInstanceStaysUsable) {
  auto instance = engine_->make_instance();
  SegmentTask bad = task(9);
  bad.start.positions[0] = std::numeric_limits<double>::quiet_NaN();
  const SegmentResult r = instance->run(bad);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.task_id, bad.task_id);
  EXPECT_NE(r.error.find("walker 7 of iteration 2"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("non-finite"), std::string::npos) << r.error;
  EXPECT_EQ(r.n_frames, 0);
  EXPECT_TRUE(r.frames.empty());

  SegmentTask short_start = task(9);
  short_start.start.positions.pop_back();
  const SegmentResult s = instance->run(short_start);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error.find("coordinates"), std::string::npos) << s.error;

  const SegmentResult after = instance->run(task(12));
  ASSERT_TRUE(after.ok()) << after.error;
  expect_same_bits(after, fresh(task(12)));
}

TEST_P(EngineConformance, TheSlotOfAnInstanceDoesNotChangeTheBits) {
  // Device 0 is ignored by engines and platforms without devices (builtin, Reference, CPU); on
  // OpenCL it is PoCL's only device, the one OpenMM picks without an index.
  const SegmentResult on_slot = engine_->make_instance(Slot{3, 0, 1})->run(task(4));
  const SegmentResult plain = engine_->make_instance(Slot{2, std::nullopt, 2})->run(task(4));
  ASSERT_TRUE(on_slot.ok() && plain.ok()) << on_slot.error << plain.error;
  expect_same_bits(on_slot, plain);
  expect_same_bits(plain, fresh(task(4)));
}

}  // namespace
}  // namespace trails::engines
