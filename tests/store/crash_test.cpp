// Crash safety: a child process commits iterations and is SIGKILLed at a named crash point
// (TRAILS_CRASH_AT); the parent then reopens the run and checks that the last commit survives,
// the iteration in flight left nothing behind, and re-committing it gives the very same bytes
// as an uninterrupted run. The child is this test binary re-executed, because crash_point()
// reads TRAILS_CRASH_AT once per process.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "store_test_util.h"

namespace trails::store::test {
namespace {

constexpr const char* kDirEnv = "TRAILS_TEST_CRASH_DIR";
constexpr const char* kUntilEnv = "TRAILS_TEST_CRASH_UNTIL";

// The shard file name of an iteration, zero-padded to six digits as docs/file-formats.md states;
// checked against RunStore::shard_path below so that the two cannot drift apart.
std::string shard_name(std::int64_t iteration) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "iter_%06lld.h5", static_cast<long long>(iteration));
  return buf;
}

// Runs only when re-executed by CrashTest: commits iterations 0..UNTIL into a new run.
TEST(StoreCrashChild, DISABLED_CommitUntilKilled) {
  const char* dir = std::getenv(kDirEnv);
  const char* until = std::getenv(kUntilEnv);
  ASSERT_NE(dir, nullptr);
  ASSERT_NE(until, nullptr);
  auto store = RunStore::create(dir, test_meta());
  for (int i = 0; i <= std::atoi(until); ++i) {
    store.commit(make_record(i));
  }
}

struct CrashCase {
  const char* point;
  int iteration;
};

class CrashTest : public StoreTest, public ::testing::WithParamInterface<CrashCase> {
 protected:
  // Re-executes this binary as the child; returns its wait status.
  int run_child(const fs::path& dir, const CrashCase& c) {
    const std::string crash_at = std::string(c.point) + ":" + std::to_string(c.iteration);
    const std::string until = std::to_string(c.iteration);
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::setenv("TRAILS_CRASH_AT", crash_at.c_str(), 1);
      ::setenv(kDirEnv, dir.c_str(), 1);
      ::setenv(kUntilEnv, until.c_str(), 1);
      const int devnull = ::open("/dev/null", O_WRONLY);
      if (devnull >= 0) {
        ::dup2(devnull, STDOUT_FILENO);
      }
      ::execl("/proc/self/exe", "test_store", "--gtest_also_run_disabled_tests",
              "--gtest_filter=StoreCrashChild.DISABLED_CommitUntilKilled", nullptr);
      ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return status;
  }
};

TEST_P(CrashTest, KillLosesOnlyTheIterationInFlight) {
  const auto c = GetParam();
  const fs::path run = dir_ / "run";
  const int status = run_child(run, c);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "child was not killed at " << c.point << " (status " << status << ")";

  const fs::path tmp = run / "shards" / (shard_name(c.iteration) + ".tmp");
  const fs::path shard = run / "shards" / shard_name(c.iteration);
  const bool renamed = std::string(c.point) != "shard-written";
  EXPECT_EQ(fs::exists(tmp), !renamed);
  EXPECT_EQ(fs::exists(shard), renamed);

  const std::optional<std::int64_t> survivor =
      c.iteration == 0 ? std::nullopt : std::optional<std::int64_t>(c.iteration - 1);
  {  // A reader sees the last commit and sweeps nothing.
    auto reader = RunStore::open(run, RunStore::Mode::ReadOnly);
    EXPECT_EQ(reader.last_committed(), survivor);
    EXPECT_EQ(fs::exists(tmp) || fs::exists(shard), true);
  }
  {
    auto store = RunStore::open(run, RunStore::Mode::ReadWrite);
    EXPECT_EQ(store.last_committed(), survivor);
    EXPECT_FALSE(fs::exists(tmp));
    EXPECT_FALSE(fs::exists(shard));
    for (int i = c.iteration; i <= c.iteration + 1; ++i) {
      store.commit(make_record(i));
    }
    const auto loaded = store.load_iterations();
    ASSERT_EQ(loaded.size(), static_cast<std::size_t>(c.iteration + 2));
    for (std::size_t i = 0; i < loaded.size(); ++i) {
      expect_same_record(loaded[i], make_record(static_cast<std::int64_t>(i)));
    }
    const std::vector<core::FrameKey> keys = {{c.iteration, 3, 4}};
    EXPECT_TRUE(
        same_bits(store.load_positions(keys)[0], frame_positions(make_record(c.iteration), 3, 4)));
  }
  // The resumed run's shards equal an uninterrupted run's, byte for byte.
  const fs::path reference = dir_ / "reference";
  {
    auto store = RunStore::create(reference, test_meta());
    for (int i = 0; i <= c.iteration + 1; ++i) {
      store.commit(make_record(i));
      EXPECT_EQ(store.shard_path(i).filename().string(), shard_name(i));
    }
  }
  for (int i = 0; i <= c.iteration + 1; ++i) {
    const std::string name = shard_name(i);
    EXPECT_EQ(read_bytes(run / "shards" / name), read_bytes(reference / "shards" / name)) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    AtEveryPoint, CrashTest,
    ::testing::Values(CrashCase{"shard-written", 1}, CrashCase{"shard-renamed", 1},
                      CrashCase{"ledger-commit", 1}, CrashCase{"ledger-commit", 0},
                      // Two-digit iterations: shard names are zero-padded, not "iter_00000" + N.
                      CrashCase{"shard-written", 10}, CrashCase{"ledger-commit", 10}),
    [](const ::testing::TestParamInfo<CrashCase>& info) {
      std::string name = std::string(info.param.point) + "_" + std::to_string(info.param.iteration);
      for (char& ch : name) {
        if (ch == '-') ch = '_';
      }
      return name;
    });

}  // namespace
}  // namespace trails::store::test
