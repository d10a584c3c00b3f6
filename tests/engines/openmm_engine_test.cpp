// The OpenMM engine on alanine dipeptide in vacuum (amber14, committed prepared system) and a
// small periodic Lennard-Jones box (NPT). The central check: a warm, re-armed Context gives
// bitwise the frames of a fresh Context, on the Reference and the CPU platform.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <OpenMM.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/compare.h"
#include "trails/core/error.h"
#include "trails/engines/frame_check.h"
#include "trails/engines/openmm/openmm_engine.h"
#include "trails/engines/openmm/platform.h"
#include "trails/engines/openmm/prepared_system.h"

namespace trails::engines::openmm {
namespace {

namespace fs = std::filesystem;

PreparedSystem alad() {
  return load_prepared_system(fs::path(TRAILS_TEST_DATA) / "openmm/alad-vacuum");
}

config::OpenMMEngineConfig settings(const std::string& platform) {
  config::OpenMMEngineConfig c;
  c.platform_name = platform;
  c.temperature = 300.0;
  c.dt = 0.002;
  return c;
}

SegmentTask task_for(const Engine& engine, std::uint64_t seed, std::int64_t steps = 200,
                     std::int64_t stride = 50) {
  SegmentTask t;
  t.start = engine.default_start();
  t.steps = steps;
  t.stride = stride;
  t.seed = seed;
  return t;
}

class ThreadsEnv : public ::testing::Environment {
 public:
  void SetUp() override { setenv("OPENMM_CPU_THREADS", "1", 1); }
};
const auto* const kThreads = ::testing::AddGlobalTestEnvironment(new ThreadsEnv);

class Rearm : public ::testing::TestWithParam<std::string> {};

TEST_P(Rearm, WarmContextGivesBitwiseTheFramesOfAFreshOne) {
  const OpenMMEngine engine(settings(GetParam()), alad());
  ASSERT_EQ(engine.platform_name(), GetParam());
  auto warm = engine.make_instance();
  const SegmentResult w1 = warm->run(task_for(engine, 11));
  const SegmentResult w2 = warm->run(task_for(engine, 22));  // re-armed with a new seed
  const SegmentResult w3 = warm->run(task_for(engine, 11));  // and back
  const SegmentResult f22 = engine.make_instance()->run(task_for(engine, 22));
  const SegmentResult f11 = engine.make_instance()->run(task_for(engine, 11));
  for (const SegmentResult* r : {&w1, &w2, &w3, &f22, &f11}) {
    ASSERT_TRUE(r->ok()) << r->error;
    EXPECT_EQ(r->n_frames, 4);
    EXPECT_EQ(r->frames.size(), 4u * 22 * 3);
    EXPECT_TRUE(r->frame_boxes.empty());  // vacuum: no box
    EXPECT_EQ(r->platform, GetParam());
  }
  EXPECT_TRUE(test_support::same_bits(w2.frames, f22.frames));
  EXPECT_TRUE(test_support::same_bits(w2.final_state.velocities, f22.final_state.velocities));
  EXPECT_TRUE(test_support::same_bits(w1.frames, f11.frames));
  EXPECT_TRUE(test_support::same_bits(w3.frames, f11.frames));
  EXPECT_TRUE(test_support::same_bits(w3.final_state.positions, f11.final_state.positions));
  EXPECT_FALSE(test_support::same_bits(w1.frames, w2.frames));  // different seeds, different noise
}

INSTANTIATE_TEST_SUITE_P(Platforms, Rearm, ::testing::Values("Reference", "CPU"));

TEST(OpenMMEngine, FramesAreTheStateAtEveryStrideAndFinalStateFollows) {
  const OpenMMEngine engine(settings("Reference"), alad());
  auto instance = engine.make_instance();
  const SegmentResult a = instance->run(task_for(engine, 5, 100, 25));
  const SegmentResult b = instance->run(task_for(engine, 5, 100, 100));
  ASSERT_TRUE(a.ok() && b.ok());
  // The last frame of the stride-25 run is the stride-100 run's only frame and its final state.
  const std::vector<double> last(a.frames.end() - 66, a.frames.end());
  EXPECT_TRUE(test_support::same_bits(last, b.frames));
  EXPECT_TRUE(test_support::same_bits(b.frames, b.final_state.positions));
  EXPECT_EQ(b.final_state.velocities.size(), 66u);
  EXPECT_FALSE(test_support::same_bits(a.frames, std::vector<double>(a.frames.size(), 0.0)));
  // The molecule moved but stayed a molecule: C-alpha to N distance (atoms 9, 7) ~0.146 nm.
  const auto d = [&](const std::vector<double>& x, int i, int j) {
    double s = 0;
    for (int k = 0; k < 3; ++k) s += (x[3 * i + k] - x[3 * j + k]) * (x[3 * i + k] - x[3 * j + k]);
    return std::sqrt(s);
  };
  EXPECT_NEAR(d(b.final_state.positions, 8, 6), 0.146, 0.02);
}

TEST(OpenMMEngine, InheritedVelocitiesAreUsedAndRecorded) {
  const OpenMMEngine engine(settings("Reference"), alad());
  auto instance = engine.make_instance();
  const SegmentResult first = instance->run(task_for(engine, 3));
  ASSERT_TRUE(first.ok());
  SegmentTask cont = task_for(engine, 4);
  cont.start = first.final_state;
  const SegmentResult a = instance->run(cont);
  const SegmentResult b = engine.make_instance()->run(cont);
  cont.start.velocities.clear();
  const SegmentResult fresh = instance->run(cont);
  ASSERT_TRUE(a.ok() && b.ok() && fresh.ok());
  EXPECT_TRUE(test_support::same_bits(a.frames, b.frames));
  EXPECT_FALSE(test_support::same_bits(a.frames, fresh.frames));
}

TEST(OpenMMEngine, FreshVelocitiesFollowTheVelocityTemperatureNotTheThermostat) {
  // Σv² of fresh Maxwell–Boltzmann velocities scales with the temperature they are drawn at;
  // after one 2 fs step under a 300 K thermostat (γ = 1/ps) a 1200 K draw keeps about 4× the
  // 300 K one, seed for seed (the same seeds, so the ratio is not a sampling estimate).
  auto sum_v2 = [](const config::OpenMMEngineConfig& c) {
    const OpenMMEngine engine(c, alad());
    auto instance = engine.make_instance();
    double sum = 0.0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      const SegmentResult r = instance->run(task_for(engine, seed, 1, 1));
      EXPECT_TRUE(r.ok()) << r.error;
      for (double v : r.final_state.velocities) sum += v * v;
    }
    return sum;
  };
  config::OpenMMEngineConfig hot = settings("Reference");
  hot.velocity_temperature = 1200.0;
  const double ratio = sum_v2(hot) / sum_v2(settings("Reference"));
  EXPECT_GT(ratio, 3.6);
  EXPECT_LT(ratio, 4.4);
  EXPECT_NE(OpenMMEngine(hot, alad()).describe().find("velocities drawn at 1200 K"),
            std::string::npos);
}

TEST(OpenMMEngine, RecordsWhereItRan) {
  const OpenMMEngine engine(settings("CPU"), alad());
  const SegmentResult r = engine.make_instance()->run(task_for(engine, 1, 50, 50));
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.platform, "CPU");
  EXPECT_EQ(r.device, "CPU threads=1; re-arm bitwise");  // OPENMM_CPU_THREADS=1 here
  EXPECT_FALSE(r.host.empty());
  EXPECT_GE(r.startup_s, 0.0);
  EXPECT_GT(r.integrate_s, 0.0);
}

TEST(OpenMMEngine, UnavailablePlatformFallsBackToCpu) {
  const OpenMMEngine engine(settings("CUDA"), alad());  // Debian's OpenMM has no CUDA
  EXPECT_EQ(engine.platform_name(), "CPU");
  std::string warning;
  EXPECT_EQ(resolve_platform("CUDA", &warning), "CPU");
  EXPECT_NE(warning.find("engine.platform_name"), std::string::npos);
}

// Two atoms pushed onto each other: the first attempt blows up; minimisation rescues an
// exploration walker, while a walker with inherited velocities fails with a readable error.
TEST(OpenMMEngine, ExplodingWalkerIsRecoveredByMinimisationUnlessItInheritedVelocities) {
  const OpenMMEngine engine(settings("Reference"), alad());
  SegmentTask t = task_for(engine, 9);
  for (int k = 0; k < 3; ++k) t.start.positions[3 * 18 + k] = t.start.positions[3 * 1 + k] + 0.002;
  auto instance = engine.make_instance();
  const SegmentResult rescued = instance->run(t);
  ASSERT_TRUE(rescued.ok()) << rescued.error;
  EXPECT_TRUE(rescued.recovered);
  EXPECT_EQ(rescued.n_frames, 4);
  for (double x : rescued.frames) ASSERT_TRUE(std::isfinite(x));

  t.start.velocities.assign(66, 0.0);
  const SegmentResult failed = instance->run(t);
  ASSERT_FALSE(failed.ok());
  EXPECT_FALSE(failed.recovered);
  EXPECT_NE(failed.error.find("walker 0 of iteration 0"), std::string::npos) << failed.error;
  EXPECT_NE(failed.error.find("engine.dt"), std::string::npos) << failed.error;
  EXPECT_TRUE(failed.frames.empty());
  // The instance is still usable afterwards, and still bitwise a fresh one.
  const SegmentResult after = instance->run(task_for(engine, 11));
  const SegmentResult fresh = engine.make_instance()->run(task_for(engine, 11));
  ASSERT_TRUE(after.ok());
  EXPECT_TRUE(test_support::same_bits(after.frames, fresh.frames));
}

// A hydrogen 3 nm from its carbon (a 0.109 nm constraint): the constraint solver drags the
// carbon along and the molecule blows apart with finite coordinates. A walker with inherited
// velocities (no recovery re-run) fails naming a bond and keeps no frames; with fewer steps than
// one stride the final state is what is caught (docs/reliability.md, "Exploded frames").
TEST(OpenMMEngine, BlownApartFrameFailsTheWalkerNamingTheBond) {
  const OpenMMEngine engine(settings("Reference"), alad());
  SegmentTask t = task_for(engine, 9);
  t.start.positions[0] += 3.0;  // atom 0, H1 of ACE, bonded to atom 1
  t.start.velocities.assign(66, 0.0);
  auto instance = engine.make_instance();
  for (const std::int64_t steps : {200, 40}) {
    t.steps = steps;
    const SegmentResult r = instance->run(t);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error.find("OpenMM: bond between atoms "), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("nm long (reference "), std::string::npos) << r.error;
    EXPECT_NE(r.error.find(steps == 40 ? "at step 40: the molecule blew apart"
                                       : "at step 50: the molecule blew apart"),
              std::string::npos)
        << r.error;
    EXPECT_NE(r.error.find("engine.dt"), std::string::npos) << r.error;
    EXPECT_TRUE(r.frames.empty());
    EXPECT_EQ(r.n_frames, 0);
  }
}

// engine.dt 0.006 ps blows alanine dipeptide apart on some walkers long before any coordinate
// becomes non-finite (Reference, seeds 1-8: seeds 2, 6 and 7 fail even after the recovery
// re-run, at bond lengths of 21 nm to 1e20 nm). Such walkers fail; every walker that succeeds
// has only sane frames.
TEST(OpenMMEngine, LargeTimeStepNeverYieldsASuccessfulWalkerWithExplodedFrames) {
  auto c = settings("Reference");
  c.dt = 0.006;
  const OpenMMEngine engine(c, alad());
  std::ifstream in(engine.prepared().system_xml);
  const std::unique_ptr<OpenMM::System> system(
      OpenMM::XmlSerializer::deserialize<OpenMM::System>(in));
  std::vector<Bond> bonds(system->getNumConstraints());  // the X-H bonds
  for (std::size_t c = 0; c < bonds.size(); ++c) {
    system->getConstraintParameters(static_cast<int>(c), bonds[c].i, bonds[c].j, bonds[c].r0);
  }
  const auto& heavy = dynamic_cast<const OpenMM::HarmonicBondForce&>(system->getForce(0));
  for (int b = 0; b < heavy.getNumBonds(); ++b) {
    double k = 0.0;
    bonds.emplace_back();
    heavy.getBondParameters(b, bonds.back().i, bonds.back().j, bonds.back().r0, k);
  }
  ASSERT_EQ(bonds.size(), 21u);
  auto instance = engine.make_instance();
  int blown = 0, ok = 0;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const SegmentResult r = instance->run(task_for(engine, seed, 1000, 50));
    if (!r.ok()) {
      blown += r.error.find("the molecule blew apart") != std::string::npos;
      EXPECT_TRUE(r.frames.empty());
      continue;
    }
    ++ok;
    ASSERT_EQ(r.n_frames, 20);
    for (std::int64_t f = 0; f < r.n_frames; ++f) {
      const std::span<const double> frame(r.frames.data() + f * 66, 66);
      const auto broken = first_broken_bond(bonds, frame);
      EXPECT_FALSE(broken.has_value())
          << "seed " << seed << ": " << describe(*broken, (f + 1) * 50);
    }
  }
  EXPECT_GT(blown, 0);
  EXPECT_GT(ok, 0);
}

// A potential energy that is not finite while every coordinate and bond stays sane (a force
// whose energy is 1/c with c = 0 and no dependence on positions, so forces stay zero) fails the
// walker: its end state is not a physical state to restart from (docs/reliability.md).
TEST(OpenMMEngine, NonFiniteEnergyWithSaneCoordinatesFailsTheWalker) {
  PreparedSystem prepared = alad();
  std::unique_ptr<OpenMM::System> system;
  {
    std::ifstream in(prepared.system_xml);
    system.reset(OpenMM::XmlSerializer::deserialize<OpenMM::System>(in));
  }
  auto* infinite = new OpenMM::CustomExternalForce("1/c");
  infinite->addGlobalParameter("c", 0.0);
  infinite->addParticle(0, {});
  system->addForce(infinite);
  const fs::path dir =
      fs::temp_directory_path() / ("trails-openmm-inf-" + std::to_string(getpid()));
  fs::create_directories(dir);
  prepared.system_xml = dir / "system.xml";
  {
    std::ofstream out(prepared.system_xml);
    OpenMM::XmlSerializer::serialize<OpenMM::System>(system.get(), "System", out);
  }
  const OpenMMEngine engine(settings("Reference"), prepared);
  SegmentTask t = task_for(engine, 5);
  for (const bool inherited : {true, false}) {  // kinetics walker, then one that is recovered
    t.start.velocities.assign(inherited ? 66 : 0, 0.0);
    const SegmentResult r = engine.make_instance()->run(t);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error.find("potential energy is not finite at step 200"), std::string::npos)
        << r.error;
    EXPECT_TRUE(r.frames.empty());
    EXPECT_EQ(r.n_frames, 0);
  }
  fs::remove_all(dir);
}

TEST(OpenMMEngine, BadTaskIsAFailedResultNotAnException) {
  const OpenMMEngine engine(settings("Reference"), alad());
  SegmentTask t = task_for(engine, 1);
  t.start.positions.pop_back();
  const SegmentResult r = engine.make_instance()->run(t);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.error.find("22 atoms"), std::string::npos) << r.error;
}

TEST(OpenMMEngine, SeedsMapToPositiveOpenMMSeeds) {
  EXPECT_EQ(openmm_seed(42), 42);
  EXPECT_EQ(openmm_seed(0), 2147483647);
  EXPECT_GT(openmm_seed(~0ULL), 0);
  EXPECT_NE(openmm_seed(1ULL << 40), openmm_seed((1ULL << 40) + 1));
}

// 64 Lennard-Jones atoms in a 2 nm periodic box, written as a prepared directory.
PreparedSystem lj_box(const fs::path& dir) {
  fs::create_directories(dir);
  OpenMM::System system;
  auto* nb = new OpenMM::NonbondedForce();
  nb->setNonbondedMethod(OpenMM::NonbondedForce::CutoffPeriodic);
  nb->setCutoffDistance(0.9);
  std::vector<double> xyz;
  for (int i = 0; i < 64; ++i) {
    system.addParticle(39.9);
    nb->addParticle(0.0, 0.34, 0.996);
    xyz.insert(xyz.end(), {0.5 * (i % 4) + 0.1, 0.5 * ((i / 4) % 4) + 0.1, 0.5 * (i / 16) + 0.1});
  }
  system.addForce(nb);
  const double L = 2.0;
  system.setDefaultPeriodicBoxVectors(OpenMM::Vec3(L, 0, 0), OpenMM::Vec3(0, L, 0),
                                      OpenMM::Vec3(0, 0, L));
  std::ofstream(dir / "system.xml") << [&] {
    std::ostringstream s;
    OpenMM::XmlSerializer::serialize<OpenMM::System>(&system, "System", s);
    return s.str();
  }();
  nlohmann::json info{{"n_atoms", 64},
                      {"positions", xyz},
                      {"box", {L, 0, 0, 0, L, 0, 0, 0, L}},
                      {"source", "test"}};
  std::ofstream(dir / "prepare.json") << info.dump();
  return load_prepared_system(dir);
}

TEST(OpenMMEngine, NptMovesTheBoxReproduciblyAndRecordsItPerFrame) {
  const fs::path dir = fs::temp_directory_path() / ("trails-openmm-lj-" + std::to_string(getpid()));
  auto c = settings("CPU");
  c.npt = true;
  c.temperature = 120.0;
  c.pressure = 500.0;  // far from the start density: the barostat must move
  const OpenMMEngine engine(c, lj_box(dir));
  auto warm = engine.make_instance();
  const SegmentResult other = warm->run(task_for(engine, 8, 500, 100));
  const SegmentResult a = warm->run(task_for(engine, 7, 500, 100));
  const SegmentResult b = engine.make_instance()->run(task_for(engine, 7, 500, 100));
  fs::remove_all(dir);
  ASSERT_TRUE(a.ok() && b.ok() && other.ok()) << a.error << b.error;
  ASSERT_EQ(a.frame_boxes.size(), 5u * 9);
  EXPECT_NE(a.final_state.box[0], 2.0);
  EXPECT_TRUE(
      test_support::same_bits(a.frame_boxes, b.frame_boxes));  // barostat re-seeded per walker
  EXPECT_TRUE(test_support::same_bits(a.frames, b.frames));
  EXPECT_FALSE(test_support::same_bits(a.frame_boxes, other.frame_boxes));
}

TEST(OpenMMEngine, NptWithoutABoxIsAConfigError) {
  auto c = settings("Reference");
  c.npt = true;
  const OpenMMEngine engine(c, alad());
  EXPECT_THROW(engine.make_instance(), trails::core::ConfigError);
}

TEST(OpenMMPlatform, PropertiesFollowTrailsMd) {
  using P = std::map<std::string, std::string>;
  EXPECT_EQ(platform_properties("CUDA", "mixed", 2, 4),
            (P{{"Precision", "mixed"}, {"DeviceIndex", "2"}}));
  EXPECT_EQ(platform_properties("CUDA", "mixed", std::nullopt, 4), (P{{"Precision", "mixed"}}));
  EXPECT_EQ(platform_properties("OpenCL", "single", 1, std::nullopt),
            (P{{"OpenCLPrecision", "single"}, {"OpenCLDeviceIndex", "1"}}));
  EXPECT_EQ(platform_properties("HIP", "mixed", 0, std::nullopt), (P{{"HipDeviceIndex", "0"}}));
  EXPECT_EQ(platform_properties("CPU", "mixed", 3, 6), (P{{"Threads", "6"}}));
  EXPECT_EQ(platform_properties("Reference", "double", 3, 6), P{});
}

TEST(OpenMMPlatform, CpuThreadCapPrecedence) {
  const char* saved = std::getenv("OPENMM_CPU_THREADS");
  const std::string keep = saved ? saved : "";
  unsetenv("OPENMM_CPU_THREADS");
  setenv("SLURM_CPUS_PER_TASK", "6", 1);
  setenv("OMP_NUM_THREADS", "2", 1);
  EXPECT_EQ(cpu_threads_from_env(), 6);
  setenv("OPENMM_CPU_THREADS", "3", 1);
  EXPECT_EQ(cpu_threads_from_env(), 3);
  setenv("OPENMM_CPU_THREADS", "zero", 1);
  unsetenv("SLURM_CPUS_PER_TASK");
  EXPECT_EQ(cpu_threads_from_env(), 2);
  unsetenv("OMP_NUM_THREADS");
  unsetenv("OPENMM_CPU_THREADS");
  EXPECT_EQ(cpu_threads_from_env(), std::nullopt);
  if (!keep.empty()) setenv("OPENMM_CPU_THREADS", keep.c_str(), 1);
}

}  // namespace
}  // namespace trails::engines::openmm

namespace trails::engines::openmm {
namespace {

// engine.equilibrate: a real pre-equilibration of the start structure, once, cached with the
// prepared system so a second engine (a resume) starts from the same bits without re-running.
TEST(OpenMMEngine, EquilibrateMovesTheStartOnceAndCachesIt) {
  const fs::path dir =
      fs::temp_directory_path() / ("trails-openmm-equil-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::copy(fs::path(TRAILS_TEST_DATA) / "openmm/alad-vacuum", dir);
  auto c = settings("Reference");
  c.equilibrate = true;
  c.equilibration_steps = 200;
  const PreparedSystem prepared = load_prepared_system(dir);
  const OpenMMEngine first(c, prepared, 42);
  std::size_t cached = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    cached += e.path().filename().string().rfind("equilibrated-", 0) == 0;
  }
  EXPECT_EQ(cached, 1u);
  const OpenMMEngine again(c, prepared, 42);
  const OpenMMEngine other_seed(c, prepared, 43);
  fs::remove_all(dir);
  EXPECT_FALSE(test_support::same_bits(first.default_start().positions, prepared.positions));
  EXPECT_TRUE(
      test_support::same_bits(first.default_start().positions, again.default_start().positions));
  EXPECT_FALSE(test_support::same_bits(first.default_start().positions,
                                       other_seed.default_start().positions));
  EXPECT_TRUE(first.default_start().velocities.empty());  // walkers draw their own
  const SegmentResult r = first.make_instance()->run(task_for(first, 1));
  EXPECT_TRUE(r.ok()) << r.error;
}

}  // namespace
}  // namespace trails::engines::openmm

#include <thread>

namespace trails::engines::openmm {
namespace {

// Workers run instances on their own threads: concurrent walkers give the bits of serial ones
// (CPU: independent Contexts; Reference: its process-wide generator is serialized by a lock).
class Concurrent : public ::testing::TestWithParam<std::string> {};

TEST_P(Concurrent, ParallelInstancesGiveTheBitsOfSerialOnes) {
  const OpenMMEngine engine(settings(GetParam()), alad());
  std::vector<SegmentResult> serial, parallel(4);
  for (std::uint64_t s = 0; s < 4; ++s)
    serial.push_back(engine.make_instance()->run(task_for(engine, 30 + s)));
  std::vector<std::thread> threads;
  for (std::uint64_t s = 0; s < 4; ++s) {
    threads.emplace_back([&, s] {
      auto instance = engine.make_instance();
      (void)instance->run(task_for(engine, 99));  // warm it with another walker first
      parallel[s] = instance->run(task_for(engine, 30 + s));
    });
  }
  for (auto& t : threads) t.join();
  for (std::size_t s = 0; s < 4; ++s) {
    ASSERT_TRUE(serial[s].ok() && parallel[s].ok());
    EXPECT_TRUE(test_support::same_bits(serial[s].frames, parallel[s].frames)) << "walker " << s;
  }
}

INSTANTIATE_TEST_SUITE_P(Platforms, Concurrent, ::testing::Values("Reference", "CPU"));

}  // namespace
}  // namespace trails::engines::openmm
