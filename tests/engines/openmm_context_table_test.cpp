// The CPU-platform Context-table lock (engines/openmm/context_table.h) is taken by CPU walkers
// and by no others: Reference walkers on several threads never touch it, which the process-wide
// acquisition counter shows without any timing. (Reference walkers are still run one at a time
// by the Reference RNG lock in openmm_segment.cpp, for a different reason.)
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "trails/engines/openmm/context_table.h"
#include "trails/engines/openmm/openmm_engine.h"
#include "trails/engines/openmm/prepared_system.h"

namespace trails::engines::openmm {
namespace {

OpenMMEngine alad_on(const std::string& platform) {
  setenv("OPENMM_CPU_THREADS", "1", 1);
  config::OpenMMEngineConfig c;
  c.platform_name = platform;
  c.temperature = 300.0;
  c.dt = 0.002;
  return OpenMMEngine(
      c, load_prepared_system(std::filesystem::path(TRAILS_TEST_DATA) / "openmm/alad-vacuum"));
}

// Two threads, each making an instance, running two walkers (create + re-arm) and dropping it.
std::uint64_t acquisitions_by_two_threads(const OpenMMEngine& engine) {
  const std::uint64_t before = context_table_acquisitions();
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  for (int w = 0; w < 2; ++w) {
    threads.emplace_back([&, w] {
      auto instance = engine.make_instance(Slot{w, std::nullopt, w});
      for (std::uint64_t seed : {1u, 2u}) {
        SegmentTask t;
        t.start = engine.default_start();
        t.steps = 20;
        t.stride = 10;
        t.seed = seed + 10 * static_cast<std::uint64_t>(w);
        ok += instance->run(t).ok() ? 1 : 0;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok.load(), 4);
  return context_table_acquisitions() - before;
}

TEST(OpenMMContextTable, OnlyTheCpuPlatformNeedsIt) {
  EXPECT_TRUE(needs_context_table_lock("CPU"));
  for (const char* other : {"Reference", "CUDA", "OpenCL", "HIP"}) {
    EXPECT_FALSE(needs_context_table_lock(other)) << other;
  }
}

TEST(OpenMMContextTable, ReferenceWalkersOnThreadsNeverTakeIt) {
  const OpenMMEngine engine = alad_on("Reference");
  ASSERT_EQ(engine.platform_name(), "Reference");
  EXPECT_EQ(acquisitions_by_two_threads(engine), 0u);
}

TEST(OpenMMContextTable, CpuWalkersOnThreadsTakeIt) {
  const OpenMMEngine engine = alad_on("CPU");
  ASSERT_EQ(engine.platform_name(), "CPU");
  // Per walker at least: create or re-arm (exclusive), load the start and step (shared).
  EXPECT_GE(acquisitions_by_two_threads(engine), 2u * 2u * 2u);
}

}  // namespace
}  // namespace trails::engines::openmm
