// FrameHistory maps global frame indices to lineage keys with raw walker indices (fixing
// fix:raw-walker-index: Trails-MD the survivor position was used).
#include <gtest/gtest.h>

#include "trails/features/frame_history.h"

using trails::core::FrameKey;
using trails::features::FrameHistory;

TEST(FrameHistory, KeysUseRawWalkerIndicesAcrossIterations) {
  FrameHistory h(2);
  // Iteration 0: walkers 0 and 1, 3 frames each.
  std::vector<FrameHistory::WalkerSpan> it0 = {{0, 3}, {1, 3}};
  std::vector<double> cv0(12);
  for (int i = 0; i < 12; ++i) cv0[i] = i;
  EXPECT_EQ(h.append(0, it0, cv0), 0);
  // Iteration 1: walker 1 failed; walkers 0 and 2 survived with 2 frames each.
  std::vector<FrameHistory::WalkerSpan> it1 = {{0, 2}, {2, 2}};
  std::vector<double> cv1(8, -1.0);
  EXPECT_EQ(h.append(1, it1, cv1), 6);

  EXPECT_EQ(h.frames(), 10);
  EXPECT_EQ(h.key_of(0), (FrameKey{0, 0, 0}));
  EXPECT_EQ(h.key_of(5), (FrameKey{0, 1, 2}));
  EXPECT_EQ(h.key_of(6), (FrameKey{1, 0, 0}));
  EXPECT_EQ(h.key_of(8), (FrameKey{1, 2, 0}));  // raw walker 2, not survivor position 1
  EXPECT_EQ(h.key_of(9), (FrameKey{1, 2, 1}));
  EXPECT_EQ(h.point(4)[0], 8.0);
  EXPECT_EQ(h.point(4)[1], 9.0);
  EXPECT_EQ(h.block_first(1), 6);
  EXPECT_EQ(h.block_frames(0), 6);
  EXPECT_EQ(h.block_frames(1), 4);
}

TEST(FrameHistory, RejectsMismatchedBlocks) {
  FrameHistory h(2);
  std::vector<FrameHistory::WalkerSpan> w = {{0, 3}};
  std::vector<double> too_short(4);
  EXPECT_ANY_THROW(h.append(0, w, too_short));
}
