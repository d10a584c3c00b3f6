// progress.json: round trip, the ETA rule, and readers that never fail on an absent, foreign,
// truncated or other-version file (it is replaced while a campaign runs).
#include <gtest/gtest.h>

#include <fstream>

#include "store_test_util.h"
#include "trails/store/progress_file.h"

namespace trails::store {
namespace {

namespace fs = std::filesystem;
using test::StoreTest;

class ProgressFile : public StoreTest {
 protected:
  void write_text(const std::string& text) {
    fs::create_directories(dir_);
    std::ofstream(progress_path(dir_)) << text;
  }
};

TEST_F(ProgressFile, RoundTripsAndIsRemoved) {
  fs::create_directories(dir_);
  EXPECT_FALSE(read_progress(dir_));
  WalkerProgress p{.iteration = 4,
                   .walkers = 64,
                   .done = 37,
                   .failed = 1,
                   .running = 8,
                   .queued = 19,
                   .elapsed_s = 12.5,
                   .eta_s = 9.0,
                   .updated_at = {}};
  ASSERT_TRUE(write_progress(dir_, p));
  EXPECT_FALSE(fs::exists(progress_path(dir_).string() + ".tmp"));
  const auto back = read_progress(dir_);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->iteration, 4);
  EXPECT_EQ(back->walkers, 64);
  EXPECT_EQ(back->done, 37);
  EXPECT_EQ(back->failed, 1);
  EXPECT_EQ(back->running, 8);
  EXPECT_EQ(back->queued, 19);
  EXPECT_EQ(back->elapsed_s, 12.5);
  EXPECT_EQ(back->eta_s, 9.0);
  EXPECT_EQ(back->updated_at.size(), 24u);  // 2026-12-04T21:40:00.123Z
  EXPECT_EQ(back->updated_at.back(), 'Z');
  p.eta_s.reset();
  ASSERT_TRUE(write_progress(dir_, p));
  EXPECT_FALSE(read_progress(dir_)->eta_s);
  remove_progress(dir_);
  EXPECT_FALSE(fs::exists(progress_path(dir_)));
  remove_progress(dir_);  // absent: fine
}

TEST_F(ProgressFile, ForeignTruncatedOrNewerFilesReadAsNothing) {
  write_text("{\"format\": \"trails-progress\", \"version\": 1, \"iter");
  EXPECT_FALSE(read_progress(dir_));
  write_text("{\"format\": \"other\", \"version\": 1}");
  EXPECT_FALSE(read_progress(dir_));
  write_text("{\"format\": \"trails-progress\", \"version\": 2, \"iteration\": 0}");
  EXPECT_FALSE(read_progress(dir_));
  write_text("{\"format\": \"trails-progress\", \"version\": 1, \"iteration\": \"x\"}");
  EXPECT_FALSE(read_progress(dir_));
}

TEST_F(ProgressFile, AnUnwritableDirectoryIsReportedNotThrown) {
  EXPECT_FALSE(write_progress(dir_ / "missing", WalkerProgress{}));
}

TEST(IterationEta, ThroughputSoFarTimesWhatRemains) {
  EXPECT_FALSE(iteration_eta(3.0, 0, 64));
  EXPECT_EQ(*iteration_eta(10.0, 16, 64), 30.0);
  EXPECT_EQ(*iteration_eta(10.0, 64, 64), 0.0);
}

}  // namespace
}  // namespace trails::store
