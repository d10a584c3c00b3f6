// Export selection and walker-local clocks (src/trails/report/export/export_segments.h): known
// times of a small hand-made lineage, the rows of each segment, and the refusals with the valid
// range.
#include <gtest/gtest.h>

#include "trails/core/error.h"
#include "trails/report/export/export_segments.h"

using namespace trails;

namespace {

store::WalkerRecord walker(std::int64_t w, std::int64_t n, std::optional<core::FrameKey> parent) {
  store::WalkerRecord r;
  r.walker = w;
  r.ok = n > 0;
  r.n_frames = n;
  r.parent = parent;
  return r;
}

// Iteration 0: walkers 0 (3 frames) and 1 (failed) and 2 (3 frames), stride 10, dt 0.5.
// Iteration 1 (stride 4, dt 0.25): walker 0 restarts from 0:2:1, walker 1 from 0:0:2.
// Iteration 2 (stride 4, dt 0.25): walker 0 restarts from 1:1:0.
std::vector<store::IterationRecord> history() {
  std::vector<store::IterationRecord> h(3);
  h[0].iteration = 0;
  h[0].stride = 10;
  h[0].dt = 0.5;
  h[0].walkers = {walker(0, 3, std::nullopt), walker(1, 0, std::nullopt),
                  walker(2, 3, std::nullopt)};
  h[1].iteration = 1;
  h[1].stride = 4;
  h[1].dt = 0.25;
  h[1].walkers = {walker(0, 2, core::FrameKey{0, 2, 1}), walker(1, 2, core::FrameKey{0, 0, 2})};
  h[2].iteration = 2;
  h[2].stride = 4;
  h[2].dt = 0.25;
  h[2].walkers = {walker(0, 2, core::FrameKey{1, 1, 0})};
  return h;
}

}  // namespace

TEST(ExportSegments, WalkerLocalClocksFollowTheLineage) {
  const auto h = history();
  const auto all = report::select_segments(h, {}, "run");
  ASSERT_EQ(all.size(), 5u);  // the failed walker has no segment
  // Roots start at 0: frame f at (f + 1) * 10 * 0.5.
  EXPECT_EQ(all[0].time(0), 5.0);
  EXPECT_EQ(all[0].time(2), 15.0);
  EXPECT_EQ(all[0].step(2), 30);
  EXPECT_EQ(all[1].walker->walker, 2);
  EXPECT_EQ(all[1].first_row, 3u);  // rows of ok walkers only
  // 1:0 restarts from 0:2:1 (time 10, step 20): frames at 10 + (f + 1) * 4 * 0.25.
  EXPECT_EQ(all[2].start_time, 10.0);
  EXPECT_EQ(all[2].start_step, 20);
  EXPECT_EQ(all[2].time(0), 11.0);
  EXPECT_EQ(all[2].step(1), 28);
  // 1:1 from 0:0:2 (time 15, step 30); 2:0 from 1:1:0 (time 16, step 34).
  EXPECT_EQ(all[3].start_time, 15.0);
  EXPECT_EQ(all[3].first_row, 2u);
  EXPECT_EQ(all[4].start_time, 16.0);
  EXPECT_EQ(all[4].start_step, 34);
  EXPECT_EQ(all[4].time(1), 18.0);
}

TEST(ExportSegments, SelectsByIterationAndWalker) {
  const auto h = history();
  const auto one = report::select_segments(h, {1, 1}, "run");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].record->iteration, 1);
  EXPECT_EQ(one[0].walker->walker, 1);
  EXPECT_EQ(one[0].start_time, 15.0);  // clocks do not depend on the selection
  const auto w0 = report::select_segments(h, {std::nullopt, 0}, "run");
  ASSERT_EQ(w0.size(), 3u);
  EXPECT_EQ(w0[2].record->iteration, 2);
  // A walker that failed exists (no error) but has no segment.
  EXPECT_TRUE(report::select_segments(h, {0, 1}, "run").empty());
}

TEST(ExportSegments, RefusesValuesOutsideTheCommittedHistory) {
  const auto h = history();
  auto message = [&](report::FrameSelection s) {
    try {
      report::select_segments(h, s, "run");
    } catch (const core::UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message({3, std::nullopt}),
            "export --iteration 3: not a committed iteration of run (committed: 0..2)");
  EXPECT_EQ(message({2, 1}),
            "export --walker 1: no such walker in iteration 2 of run (walkers 0..0)");
  EXPECT_EQ(message({std::nullopt, 3}),
            "export --walker 3: no such walker in the committed iterations of run (walkers 0..2)");
  EXPECT_EQ(message({std::nullopt, -1}),
            "export --walker -1: no such walker in the committed iterations of run (walkers 0..2)");
  EXPECT_EQ(report::select_segments({}, {}, "run").size(), 0u);
  try {
    report::select_segments({}, {0, std::nullopt}, "run");
    FAIL() << "accepted";
  } catch (const core::UsageError& e) {
    EXPECT_STREQ(e.what(),
                 "export --iteration 0: not a committed iteration of run (no iteration is "
                 "committed yet)");
  }
}

TEST(ExportSegments, AParentOutsideTheHistoryIsAnInputError) {
  auto h = history();
  h[2].walkers[0].parent = core::FrameKey{1, 1, 5};  // segment 1:1 has 2 frames
  EXPECT_THROW(report::select_segments(h, {}, "run"), core::InputError);
}
