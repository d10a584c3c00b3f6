// The OpenMM engine on a real OpenCL device: PoCL's CPU device, which scripts/install-deps
// installs (pocl-opencl-icd), so these tests fail, not skip, where it is missing. Alanine
// dipeptide in vacuum, single precision, a few hundred steps. Checked: the fast re-arm (the GPU
// platforms' default, docs/engines.md "Reproducibility") rebuilds nothing on a warm slot — counted
// through context_builds(), not timed — and its contract (first walker bitwise a fresh Context's,
// a serial sequence reproducible, the noise continuing); bitwise mode rebuilds once per walker;
// several Contexts on one device built and run at once; device and re-arm recorded per walker;
// device resource errors worded as such.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <thread>

#include "support/compare.h"
#include "trails/engines/device_error.h"
#include "trails/engines/openmm/context_builds.h"
#include "trails/engines/openmm/device_errors.h"
#include "trails/engines/openmm/openmm_engine.h"
#include "trails/engines/openmm/platform.h"
#include "trails/engines/openmm/prepared_system.h"

namespace trails::engines::openmm {
namespace {

using config::Reproducibility;

OpenMMEngine opencl_engine(Reproducibility reproducibility,
                           const std::string& precision = "single") {
  config::OpenMMEngineConfig c;
  c.platform_name = "OpenCL";
  c.precision = precision;
  c.reproducibility = reproducibility;
  return OpenMMEngine(
      c, load_prepared_system(std::filesystem::path(TRAILS_TEST_DATA) / "openmm/alad-vacuum"));
}

SegmentTask task(const Engine& engine, std::uint64_t seed) {
  SegmentTask t;
  t.task_id = static_cast<std::int64_t>(seed);
  t.walker = static_cast<std::int64_t>(seed);
  t.start = engine.default_start();
  t.steps = 100;
  t.stride = 50;
  t.seed = seed;
  return t;
}

bool same_dynamics(const SegmentResult& a, const SegmentResult& b) {
  return test_support::same_bits(a.frames, b.frames) &&
         test_support::same_bits(a.final_state.positions, b.final_state.positions) &&
         test_support::same_bits(a.final_state.velocities, b.final_state.velocities);
}

TEST(OpenCL, ThePlatformIsInstalled) {
  std::string warning;
  EXPECT_EQ(resolve_platform("OpenCL", &warning), "OpenCL")
      << "OpenMM has no OpenCL platform here (" << warning
      << "): install PoCL with scripts/install-deps (pocl-opencl-icd)";
}

TEST(OpenCL, AutoIsFastOnGpuPlatformsAndBitwiseOnCpuAndReference) {
  for (const char* gpu : {"CUDA", "OpenCL", "HIP"}) {
    EXPECT_TRUE(fast_rearm(Reproducibility::Auto, gpu)) << gpu;
    EXPECT_FALSE(fast_rearm(Reproducibility::Bitwise, gpu)) << gpu;
  }
  for (const char* cpu : {"CPU", "Reference"}) {
    EXPECT_FALSE(fast_rearm(Reproducibility::Auto, cpu)) << cpu;
    EXPECT_TRUE(fast_rearm(Reproducibility::Fast, cpu)) << cpu;
  }
}

TEST(OpenCL, AWarmSlotReArmsWithoutRebuildingAndRecordsIt) {
  const OpenMMEngine engine = opencl_engine(Reproducibility::Auto);
  auto instance = engine.make_instance(Slot{0, 0, 0});
  const std::uint64_t before = context_builds();
  const SegmentResult first = instance->run(task(engine, 11));
  ASSERT_TRUE(first.ok()) << first.error;
  EXPECT_EQ(context_builds(), before + 1);  // the Context itself
  for (std::uint64_t seed : {22, 33, 44}) {
    const SegmentResult r = instance->run(task(engine, seed));
    ASSERT_TRUE(r.ok()) << r.error;
  }
  EXPECT_EQ(context_builds(), before + 1) << "a fast re-arm rebuilt the Context";
  EXPECT_EQ(first.platform, "OpenCL");
  EXPECT_EQ(first.device.rfind("OpenCL device 0 ", 0), 0u) << first.device;
  EXPECT_NE(first.device.find("; re-arm fast"), std::string::npos) << first.device;
}

TEST(OpenCL, BitwiseModeRebuildsOncePerWalker) {
  const OpenMMEngine engine = opencl_engine(Reproducibility::Bitwise);
  auto instance = engine.make_instance();
  const std::uint64_t before = context_builds();
  for (std::uint64_t seed : {5, 6, 7}) ASSERT_TRUE(instance->run(task(engine, seed)).ok());
  EXPECT_EQ(context_builds(), before + 3);
  EXPECT_NE(instance->run(task(engine, 8)).device.find("; re-arm bitwise"), std::string::npos);
}

// The contract of docs/engines.md: the first walker of a Context is bitwise what bitwise mode
// gives; later walkers continue the noise (not a fresh Context's bits), and the same sequence of
// walkers on a slot gives the same bits again.
TEST(OpenCL, FastReArmKeepsItsReproducibilityContract) {
  const OpenMMEngine fast = opencl_engine(Reproducibility::Fast);
  const OpenMMEngine bitwise = opencl_engine(Reproducibility::Bitwise);
  auto slot = fast.make_instance();
  const SegmentResult a = slot->run(task(fast, 11));
  const SegmentResult b = slot->run(task(fast, 22));
  ASSERT_TRUE(a.ok() && b.ok()) << a.error << b.error;
  EXPECT_TRUE(same_dynamics(a, bitwise.make_instance()->run(task(bitwise, 11))));
  EXPECT_FALSE(same_dynamics(b, bitwise.make_instance()->run(task(bitwise, 22))));
  auto again = fast.make_instance();
  EXPECT_TRUE(same_dynamics(a, again->run(task(fast, 11))));
  EXPECT_TRUE(same_dynamics(b, again->run(task(fast, 22))));
}

// Several Contexts on one device, built and run at once (workers_per_device): PoCL fails the
// concurrent first builds with clCreateBuffer (-61) unless the first is built alone.
TEST(OpenCL, SeveralContextsOnOneDeviceRunAtOnce) {
  const OpenMMEngine engine = opencl_engine(Reproducibility::Auto);
  constexpr int kWorkers = 3;
  std::vector<SegmentResult> results(kWorkers);
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([&, w] {
      auto instance = engine.make_instance(Slot{w, 0, w});
      results[static_cast<std::size_t>(w)] = instance->run(task(engine, 100 + w));
    });
  }
  for (auto& t : workers) t.join();
  for (int w = 0; w < kWorkers; ++w) {
    const SegmentResult& r = results[static_cast<std::size_t>(w)];
    ASSERT_TRUE(r.ok()) << "worker " << w << ": " << r.error;
    EXPECT_EQ(r.device.rfind("OpenCL device 0 ", 0), 0u) << r.device;
    // Each is the first walker of its Context: bitwise the same walker run alone.
    EXPECT_TRUE(same_dynamics(r, engine.make_instance()->run(task(engine, 100 + w)))) << w;
  }
}

TEST(OpenCL, DeviceResourceErrorsAreNotBlamedOnTheTimeStep) {
  const std::string pocl =
      device_resource_problem("Error creating array posq: clCreateBuffer (-61)");
  EXPECT_EQ(pocl.rfind("CL_INVALID_BUFFER_SIZE: the device ran out of memory or resources", 0), 0u)
      << pocl;
  EXPECT_NE(pocl.find("execution.workers_per_device"), std::string::npos);
  // The campaign tells a device failure from one of the dynamics by these words alone.
  EXPECT_TRUE(engines::is_device_resource_error("walker 0: OpenMM: " + pocl));
  EXPECT_FALSE(engines::is_device_resource_error("Particle coordinate is NaN"));
  EXPECT_EQ(device_resource_problem("Error invoking kernel: clEnqueueNDRangeKernel (-5)")
                .rfind("CL_OUT_OF_RESOURCES", 0),
            0u);
  EXPECT_EQ(device_resource_problem("Error creating array: CUDA_ERROR_OUT_OF_MEMORY (2)")
                .rfind("CUDA_ERROR_OUT_OF_MEMORY", 0),
            0u);
  EXPECT_EQ(device_resource_problem("Particle coordinate is NaN"), "");
  EXPECT_EQ(device_resource_problem("Error compiling program: clBuildProgram (-11)"), "");
}

}  // namespace
}  // namespace trails::engines::openmm
