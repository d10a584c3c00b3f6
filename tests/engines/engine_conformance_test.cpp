// One test body for every engine (as OpenMM runs one body per platform), each built through the
// engines registry where it can be (make_engine): the built-in engine with each potential and
// integrator; OpenMM on the Reference, the CPU and the OpenCL platform (PoCL; single and mixed
// precision, engine.reproducibility: bitwise) with alanine dipeptide in vacuum
// (tests/data/openmm/alad-vacuum); GROMACS on Trails-MD's AlaD through tests/scripts/gmx-for-tests;
// Amber through tests/data/amber/fake_pmemd.py on two argon atoms; the command engine running the
// built-in engine through `trails integrate` (examples/command-engine/runseg_builtin.sh). Each
// case checks: a re-armed instance gives bitwise a fresh one's result; same seed -> same bits,
// different seed -> different bits; steps/stride frames and no t=0 frame; the final state has
// positions (and velocities where the dynamics has them); a segment restarts from another's final
// state; a failing walker is Failed with a readable error and the instance stays usable, bitwise;
// the slot an instance is made for does not change the bits. What an engine cannot honour is a
// named limit of its case (Limits), and the body checks that the limit is what it says.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>

#include "support/compare.h"
#include "support/files.h"
#include "trails/config/engines/engine_module.h"
#include "trails/engines/openmm/openmm_engine.h"
#include "trails/engines/openmm/prepared_system.h"
#include "trails/engines/registry.h"

namespace trails::engines {
namespace {

namespace fs = std::filesystem;

// What an engine (or the stand-in program a case runs) cannot honour, each checked as stated.
struct Limits {
  // The dynamics ignores the seed (fake_pmemd.py shifts the start by a fixed step): different
  // seeds give the same bits.
  bool seed_free = false;
  // Frames are single precision (NetCDF, TRR): the last frame equals the final state only to
  // float precision.
  bool single_precision_frames = false;
  // A segment is whole strides (GROMACS: nstxout divides nsteps): steps that are not a multiple
  // of the stride are a failed walker, not a remainder integrated without a frame.
  bool whole_strides_only = false;
  // The engine has no refusal of its own naming a start's coordinates, as the other engines
  // have: a start with too few coordinates fails the walker where the engine hands it on, with
  // the case's short_start_error. GROMACS: patching the run input (walker.tpr), whose atom count
  // differs, before mdrun runs; Amber: the program runs on the start file's whole atoms and the
  // trajectory it writes holds fewer atoms than the prmtop. Drivers hand engines only starts of
  // their own system (the frames and final states it wrote).
  bool takes_any_start = false;
  // The result's device is the slot's device index, which the engine hands its program (Amber:
  // CUDA_VISIBLE_DEVICES; the command engine: TRAILS_DEVICE) without knowing whether the program
  // uses it: the bits are the slot-free ones, the record names the slot's device.
  bool records_slot_device = false;
};

struct EngineCase {
  const char* name;
  const char* engine;  // its engine.md_engine value
  // The engine, with a fresh directory for its run directory and walkers' scratch.
  std::function<std::unique_ptr<Engine>(const fs::path& dir)> make;
  std::int64_t stride;  // a segment is 4 strides (+ half a stride in the remainder case)
  bool has_velocities;  // the dynamics carries velocities into the final state
  Limits limits;
  // Runs `task` so that the walker fails as this engine's walkers fail (the built-in engine and
  // OpenMM: a non-finite start; an external engine: its program exits non-zero), and the text
  // the error must hold.
  std::function<SegmentResult(EngineInstance&, SegmentTask)> run_failing;
  const char* failure_text;
  // What a start with one coordinate too few fails with: the engine's own refusal names the
  // coordinates; an engine with takes_any_start fails where its limit says.
  const char* short_start_error = "coordinates";
};

void PrintTo(const EngineCase& c, std::ostream* out) { *out << c.name; }

SegmentResult run_from_non_finite_start(EngineInstance& instance, SegmentTask task) {
  task.start.positions[0] = std::numeric_limits<double>::quiet_NaN();
  return instance.run(task);
}

// Runs the task with an environment variable set that makes the engine's program fail.
std::function<SegmentResult(EngineInstance&, SegmentTask)> run_with(const char* variable,
                                                                    const char* value) {
  return [=](EngineInstance& instance, const SegmentTask& task) {
    ::setenv(variable, value, 1);
    SegmentResult r = instance.run(task);
    ::unsetenv(variable);
    return r;
  };
}

EngineCase builtin_case(const char* name, config::Potential potential,
                        config::Integrator integrator, double dt) {
  const bool velocities =
      integrator == config::Integrator::Langevin && potential != config::Potential::BiasedWalk;
  return {name,
          "builtin",
          [=](const fs::path& dir) {
            config::BuiltinSpec c;
            c.potential = potential;
            c.integrator = integrator;
            c.dt = dt;
            return make_engine(c, dir);
          },
          25,
          velocities,
          {},
          run_from_non_finite_start,
          "non-finite"};
}

EngineCase openmm_case(const char* name, const char* platform, const char* precision = "mixed") {
  return {name,
          "openmm",
          [=](const fs::path&) {
            setenv("OPENMM_CPU_THREADS", "1", 1);
            config::OpenMMEngineConfig c;
            c.platform_name = platform;
            c.precision = precision;
            c.reproducibility = config::Reproducibility::Bitwise;
            c.temperature = 300.0;
            c.dt = 0.002;
            auto prepared =
                openmm::load_prepared_system(fs::path(TRAILS_TEST_DATA) / "openmm/alad-vacuum");
            return std::unique_ptr<Engine>(
                std::make_unique<openmm::OpenMMEngine>(c, std::move(prepared)));
          },
          25,
          true,
          {},
          run_from_non_finite_start,
          "non-finite"};
}

// GROMACS on AlaD (1021 atoms), 5-step strides, one OpenMP thread, -reprod: gmx-for-tests runs
// mdrun natively or under qemu-x86_64 (tests/scripts/gmx-for-tests); TRAILS_TEST_GMX=broken
// (no route) makes its mdrun exit 2, a failing mdrun.
EngineCase gromacs_case() {
  const fs::path alad = fs::path(TRAILS_TEST_DATA) / "trails-md-examples/AlaD";
  return {"gromacs_alad",
          "gromacs",
          [=](const fs::path& dir) {
            config::GromacsSpec s;
            s.conf_file = alad / "start.gro";
            s.top_file = alad / "topol.top";
            s.include_dir = "/usr/share/gromacs/top";
            s.params.executable = std::string(TRAILS_SOURCE_DIR) + "/tests/scripts/gmx-for-tests";
            s.params.mdrun_ntomp = 1;
            s.params.mdrun_pin = "off";
            s.params.mdrun_extra_args = {"-reprod"};
            s.files.scratch = dir;
            return make_engine(s, dir / "run");
          },
          5,
          true,
          {.single_precision_frames = true, .whole_strides_only = true, .takes_any_start = true},
          run_with("TRAILS_TEST_GMX", "broken"),
          "exited with status",
          "walker start state has 1020 atoms, the GROMACS run input 1021"};
}

// Amber through fake_pmemd.py (pmemd/sander are not in Debian): pmemd's command line and files.
EngineCase amber_case() {
  const fs::path argon = fs::path(TRAILS_TEST_DATA) / "openmm/argon-amber";
  return {"amber_fake_pmemd",
          "amber",
          [=](const fs::path& dir) {
            config::AmberSpec s;
            s.executable = (fs::path(TRAILS_TEST_DATA) / "amber/fake_pmemd.py").string();
            s.top_file = argon / "argon2.prmtop";
            s.conf_file = argon / "argon2.inpcrd";
            s.files.scratch = dir;
            return make_engine(s, dir / "run");
          },
          25,
          false,
          {.seed_free = true,
           .single_precision_frames = true,
           .takes_any_start = true,
           .records_slot_device = true},
          run_with("FAKE_PMEMD_FAIL", "1"),
          "exited with status 1",
          "traj.nc: 1 atoms, expected 2 (the prmtop's)"};
}

// The command engine running the built-in Müller-Brown Langevin dynamics through
// `trails integrate` (a process and a YAML load per segment, about 0.3 s).
EngineCase command_case() {
  return {"command_trails_integrate",
          "command",
          [](const fs::path& dir) {
            // `trails integrate` loads a whole campaign YAML and runs its engine block.
            const fs::path yaml = test_support::write_text(
                dir / "builtin.yaml", "outdir: " + (dir / "unused-outdir").string() +
                                          "\n"
                                          "n_bins: [30, 30]\n"
                                          "min_values: [-1.5, -0.5]\n"
                                          "max_values: [1.2, 2.0]\n"
                                          "space_mode: fixed\n"
                                          "system:\n  start: [-0.5, 1.5]\n"
                                          "engine:\n  md_engine: builtin\n"
                                          "  potential: muller_brown\n"
                                          "  integrator: langevin\n  dt: 0.0001\n"
                                          "spawning:\n  walker: 1\n  step: 100\n"
                                          "  stride: 25\n");
            ::setenv("TRAILS_BUILTIN_CONFIG", yaml.c_str(), 1);
            ::setenv("TRAILS_EXECUTABLE", TRAILS_BINARY, 1);
            config::CommandSpec s;
            s.command = {"/bin/sh", std::string(TRAILS_SOURCE_DIR) +
                                        "/examples/command-engine/runseg_builtin.sh"};
            s.start = {-0.5, 1.5};
            s.dt = 0.0001;
            s.files.scratch = dir;
            return make_engine(s, dir / "run");
          },
          25,
          true,
          {.records_slot_device = true},
          run_from_non_finite_start,
          "non-finite"};
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
      gromacs_case(),
      amber_case(),
      command_case(),
  };
}

// Adding an engine to the engine list (config/engines/engine_list.h) without a case here fails.
TEST(EngineConformanceCases, EveryEngineOfTheListHasACase) {
  const auto cases = every_engine();
  for (const std::string_view engine : config::detail::engine_names()) {
    bool found = false;
    for (const EngineCase& c : cases) found = found || engine == c.engine;
    EXPECT_TRUE(found) << engine << " has no case in engine_conformance_test.cpp";
  }
}

class EngineConformance : public ::testing::TestWithParam<EngineCase> {
 protected:
  // One engine per case for the whole suite (GROMACS runs grompp, OpenMM loads its system),
  // in a directory that lives as long as the test process.
  void SetUp() override {
    auto& engine = engines()[GetParam().name];
    if (!engine) engine = GetParam().make(test_support::fresh_dir(GetParam().name));
    engine_ = engine.get();
  }
  static void TearDownTestSuite() { engines().clear(); }
  static std::map<std::string, std::unique_ptr<Engine>>& engines() {
    static std::map<std::string, std::unique_ptr<Engine>> made;
    return made;
  }

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
  const Limits& limits() const { return GetParam().limits; }
  // Coordinates in a frame (and in a final state's positions).
  std::size_t values_per_frame() const {
    return static_cast<std::size_t>(engine_->n_atoms()) *
           static_cast<std::size_t>(engine_->spatial_dim());
  }

  const Engine* engine_ = nullptr;
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
  // A seed-free engine's limit, as stated: another seed gives the same frames.
  EXPECT_EQ(same_bits(a.frames, c.frames), limits().seed_free);
  EXPECT_EQ(same_bits(a.final_state.positions, c.final_state.positions), limits().seed_free);
}

TEST_P(EngineConformance, FramesAreStepsOverStrideWithoutTheStartFrame) {
  const std::size_t per_frame = values_per_frame();
  const SegmentTask t = task(3);
  const SegmentResult r = fresh(t);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.task_id, t.task_id);
  EXPECT_EQ(r.n_frames, 4);
  ASSERT_EQ(r.frames.size(), 4 * per_frame);
  // The first frame is the state after `stride` steps, not the start; the last is the end.
  EXPECT_FALSE(same_bits({r.frames.begin(), r.frames.begin() + static_cast<long>(per_frame)},
                         t.start.positions));
  const std::vector<double> last(r.frames.end() - static_cast<long>(per_frame), r.frames.end());
  if (limits().single_precision_frames) {
    ASSERT_EQ(last.size(), r.final_state.positions.size());
    for (std::size_t i = 0; i < last.size(); ++i) {
      EXPECT_NEAR(last[i], r.final_state.positions[i],
                  1e-6 * std::max(1.0, std::abs(r.final_state.positions[i])));
    }
  } else {
    EXPECT_TRUE(same_bits(last, r.final_state.positions));
  }
  // A remainder of half a stride is integrated but gives no frame (or, for an engine of whole
  // strides, the walker fails saying why).
  SegmentTask longer = t;
  longer.steps += std::max<std::int64_t>(t.stride / 2, 1);
  const SegmentResult l = fresh(longer);
  if (limits().whole_strides_only) {
    EXPECT_FALSE(l.ok());
    EXPECT_NE(l.error.find("not a positive multiple of stride"), std::string::npos) << l.error;
    return;
  }
  ASSERT_TRUE(l.ok()) << l.error;
  EXPECT_EQ(l.n_frames, 4);
  EXPECT_EQ(l.frames.size(), 4 * per_frame);
  EXPECT_TRUE(same_bits(l.frames, r.frames));  // the same noise up to the fourth frame
}

TEST_P(EngineConformance, FinalStateHasPositionsAndVelocities) {
  const SegmentResult r = fresh(task(8));
  ASSERT_TRUE(r.ok()) << r.error;
  const std::size_t n = values_per_frame();
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

TEST_P(EngineConformance, ASegmentRestartsFromAnotherSegmentsFinalState) {
  const SegmentResult first = fresh(task(14));
  ASSERT_TRUE(first.ok()) << first.error;
  SegmentTask next = task(15);
  next.start = first.final_state;
  const SegmentResult second = fresh(next);
  ASSERT_TRUE(second.ok()) << second.error;
  EXPECT_EQ(second.n_frames, 4);
  EXPECT_FALSE(same_bits(second.final_state.positions, first.final_state.positions));
  // The restart is its own input: the same start and seed give the same bits again.
  expect_same_bits(second, fresh(next));
}

TEST_P(EngineConformance, AFailingTaskIsFailedReadablyAndTheInstanceStaysUsable) {
  auto instance = engine_->make_instance();
  const SegmentTask bad = task(9);
  const SegmentResult r = GetParam().run_failing(*instance, bad);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.task_id, bad.task_id);
  EXPECT_NE(r.error.find("walker 7 of iteration 2"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find(GetParam().failure_text), std::string::npos) << r.error;
  EXPECT_EQ(r.n_frames, 0);
  EXPECT_TRUE(r.frames.empty());

  SegmentTask short_start = task(9);
  short_start.start.positions.pop_back();
  const SegmentResult s = instance->run(short_start);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.error.find(GetParam().short_start_error), std::string::npos) << s.error;
  // The limit as stated: an engine that takes any start has no refusal naming the coordinates.
  EXPECT_EQ(s.error.find("coordinates") == std::string::npos, limits().takes_any_start) << s.error;

  const SegmentResult after = instance->run(task(12));
  ASSERT_TRUE(after.ok()) << after.error;
  expect_same_bits(after, fresh(task(12)));
}

TEST_P(EngineConformance, TheSlotOfAnInstanceDoesNotChangeTheBits) {
  // Device 0 is ignored by engines and platforms without devices (builtin, Reference, CPU, the
  // external engines' CPU runs); on OpenCL it is PoCL's only device, the one OpenMM picks
  // without an index.
  SegmentResult on_slot = engine_->make_instance(Slot{3, 0, 1})->run(task(4));
  const SegmentResult plain = engine_->make_instance(Slot{2, std::nullopt, 2})->run(task(4));
  ASSERT_TRUE(on_slot.ok() && plain.ok()) << on_slot.error << plain.error;
  if (limits().records_slot_device) {
    EXPECT_EQ(on_slot.device, "0");
    EXPECT_EQ(plain.device, "");
    on_slot.device = plain.device;  // the record differs as stated; the rest must not
  }
  expect_same_bits(on_slot, plain);
  expect_same_bits(plain, fresh(task(4)));
}

}  // namespace
}  // namespace trails::engines
