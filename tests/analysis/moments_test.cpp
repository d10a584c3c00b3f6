// Running moments against two-pass brute force, for any split into segments and merge order.
#include "trails/analysis/moments.h"

#include <gtest/gtest.h>

#include <vector>

#include "spaces_test_util.h"
#include "trails/core/error.h"

namespace trails::analysis {
namespace {

using testing::cross_cov;
using testing::mean_of;
using testing::random_frames;
using testing::stack_rows;

double max_abs(const Eigen::MatrixXd& M) { return M.cwiseAbs().maxCoeff(); }

// Segments of varied lengths, including ones shorter than lag + 1 and longer than a chunk.
std::vector<FrameMatrix> make_segments(int d, double offset = 0) {
  const std::vector<std::int64_t> lengths{7, 1, 3, 5000, 4, 250, 2, 2049, 6};
  std::vector<FrameMatrix> segs;
  std::uint64_t seed = 11;
  for (const auto n : lengths) segs.push_back(random_frames(n, d, seed++, offset));
  return segs;
}

TEST(RunningMoments, EqualsBruteForceForAnySplit) {
  const int d = 4, lag = 3;
  const auto segs = make_segments(d);
  RunningMoments serial(d, lag);
  for (const auto& s : segs) serial.add_segment(s);

  // Same segments, accumulated in two halves and merged, and as a right-leaning merge tree.
  RunningMoments left(d, lag), right(d, lag);
  for (std::size_t k = 0; k < segs.size(); ++k) (k < 4 ? left : right).add_segment(segs[k]);
  left.merge(right);
  RunningMoments tree = RunningMoments::of_segment(segs.back(), lag);
  for (std::size_t k = segs.size() - 1; k-- > 0;) {
    RunningMoments head = RunningMoments::of_segment(segs[k], lag);
    head.merge(tree);
    tree = head;
  }

  const FrameMatrix all = stack_rows(segs, 0, false);
  const FrameMatrix X = stack_rows(segs, lag, false), Y = stack_rows(segs, lag, true);
  const Eigen::VectorXd m = mean_of(all), mx = mean_of(X), my = mean_of(Y);
  for (const RunningMoments* acc : {&serial, &left, &tree}) {
    EXPECT_EQ(acc->n_frames(), all.rows());
    EXPECT_EQ(acc->n_pairs(), X.rows());
    EXPECT_EQ(acc->n_segments(), 9);
    EXPECT_EQ(acc->n_segments_with_pairs(), 6);  // lengths 1, 2 and 3 have no pair at lag 3
    const Covariances inst = acc->instantaneous();
    EXPECT_LT(max_abs(inst.mean_0 - m), 1e-12);
    EXPECT_LT(max_abs(inst.c00 - cross_cov(all, m, all, m)), 1e-12);
    const Covariances lg = acc->lagged();
    EXPECT_LT(max_abs(lg.mean_0 - mx), 1e-12);
    EXPECT_LT(max_abs(lg.mean_t - my), 1e-12);
    EXPECT_LT(max_abs(lg.c00 - cross_cov(X, mx, X, mx)), 1e-12);
    EXPECT_LT(max_abs(lg.c0t - cross_cov(X, mx, Y, my)), 1e-12);
    EXPECT_LT(max_abs(lg.ctt - cross_cov(Y, my, Y, my)), 1e-12);
  }
}

TEST(RunningMoments, LaggedCentringOptionsMatchTheirDefinitions) {
  const int d = 3, lag = 2;
  const auto segs = make_segments(d);
  RunningMoments acc(d, lag);
  for (const auto& s : segs) acc.add_segment(s);
  const FrameMatrix X = stack_rows(segs, lag, false), Y = stack_rows(segs, lag, true);
  const Eigen::VectorXd mx = mean_of(X), my = mean_of(Y), mu = 0.5 * (mx + my);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(d);

  const Covariances raw = acc.lagged({MeanRemoval::None, false});
  EXPECT_FALSE(raw.mean_removed);
  EXPECT_LT(max_abs(raw.c0t - cross_cov(X, zero, Y, zero)), 1e-11);
  EXPECT_LT(max_abs(raw.c00 - cross_cov(X, zero, X, zero)), 1e-11);

  const Covariances shared = acc.lagged({MeanRemoval::Shared, false});
  EXPECT_LT(max_abs(shared.mean_0 - mu), 1e-12);
  EXPECT_LT(max_abs(shared.c00 - cross_cov(X, mu, X, mu)), 1e-12);
  EXPECT_LT(max_abs(shared.c0t - cross_cov(X, mu, Y, mu)), 1e-12);
  EXPECT_LT(max_abs(shared.ctt - cross_cov(Y, mu, Y, mu)), 1e-12);

  // Reversible (deeptime): both halves about the shared mean, then symmetrised.
  const Covariances sym = acc.lagged({MeanRemoval::Separate, true});
  EXPECT_TRUE(sym.symmetrized);
  const Eigen::MatrixXd c00 = 0.5 * (cross_cov(X, mu, X, mu) + cross_cov(Y, mu, Y, mu));
  const Eigen::MatrixXd c0t = 0.5 * (cross_cov(X, mu, Y, mu) + cross_cov(Y, mu, X, mu));
  EXPECT_LT(max_abs(sym.c00 - c00), 1e-12);
  EXPECT_LT(max_abs(sym.ctt - c00), 1e-12);
  EXPECT_LT(max_abs(sym.c0t - c0t), 1e-12);
  EXPECT_LT(max_abs(sym.mean_0 - mu), 1e-12);
  EXPECT_EQ(sym.c0t, sym.c0t.transpose());
}

// fix:walker-segment-pairs: Trails-MD's fixed-size blocks let lagged pairs cross walker boundaries.
// Here the pairs come only from within each segment, so the jump between walkers is never counted.
TEST(RunningMoments, LaggedPairsNeverCrossSegments) {
  FrameMatrix a = FrameMatrix::Zero(3, 1), b = FrameMatrix::Constant(4, 1, 10.0);
  RunningMoments acc(1, 1);
  acc.add_segment(a);
  acc.add_segment(b);
  EXPECT_EQ(acc.n_pairs(), 2 + 3);  // n - lag per segment, never the 6 of the joined frames
  const Covariances c = acc.lagged({MeanRemoval::None, false});
  // Pairs (0,0) x2 and (10,10) x3: E[x y] = 300 / 5 = 60. Joined frames would add (0, 10).
  EXPECT_DOUBLE_EQ(c.c0t(0, 0), 60.0);
  RunningMoments joined(1, 1);
  FrameMatrix ab(7, 1);
  ab << a, b;
  joined.add_segment(ab);
  EXPECT_EQ(joined.n_pairs(), 6);
  EXPECT_GT(std::abs(joined.lagged({MeanRemoval::None, false}).c0t(0, 0) - 60.0), 5.0);

  // add_segments splits a stacked block by exact frame counts.
  RunningMoments split(1, 1);
  const std::vector<std::int64_t> lengths{3, 4};
  split.add_segments(ab, lengths);
  EXPECT_EQ(split.n_pairs(), 5);
  EXPECT_DOUBLE_EQ(split.lagged({MeanRemoval::None, false}).c0t(0, 0), 60.0);
  const std::vector<std::int64_t> wrong{3, 3};
  EXPECT_THROW(split.add_segments(ab, wrong), core::InputError);
}

TEST(RunningMoments, ShortSegmentsCountFramesButNoPairs) {
  RunningMoments acc(2, 5);
  acc.add_segment(random_frames(5, 2, 3));  // exactly lag frames: no pair
  EXPECT_EQ(acc.n_frames(), 5);
  EXPECT_EQ(acc.n_pairs(), 0);
  EXPECT_THROW(acc.lagged(), core::InputError);
  acc.add_segment(random_frames(6, 2, 4));  // lag + 1 frames: one pair
  EXPECT_EQ(acc.n_pairs(), 1);
  EXPECT_NO_THROW(acc.lagged());
}

TEST(RunningMoments, FoldInSegmentOrderIsBitwiseSerial) {
  const int d = 5, lag = 4;
  const auto segs = make_segments(d);
  RunningMoments serial(d, lag);
  for (const auto& s : segs) serial.add_segment(s);
  std::vector<RunningMoments> parts;  // as threads would produce them, in any completion order
  for (std::size_t k = segs.size(); k-- > 0;)
    parts.insert(parts.begin(), RunningMoments::of_segment(segs[k], lag));
  RunningMoments folded(d, lag);
  for (const auto& p : parts) folded.merge(p);
  EXPECT_EQ(serial.to_flat(), folded.to_flat());
}

TEST(RunningMoments, ThreadCountDoesNotChangeABit) {
  const int d = 6, lag = 3;
  const auto segs = make_segments(d);
  const FrameMatrix stacked = stack_rows(segs, 0, false);
  std::vector<std::int64_t> lengths;
  for (const auto& s : segs) lengths.push_back(s.rows());
  lengths.insert(lengths.begin() + 2, 0);  // an empty segment counts, adds nothing
  RunningMoments serial(d, lag);
  for (const auto& s : segs) serial.add_segment(s);
  for (int threads : {1, 2, 3, 8}) {
    RunningMoments par(d, lag);
    par.add_segments(stacked, lengths, threads);
    auto a = serial.to_flat(), b = par.to_flat();
    b[3] -= 1;  // the extra empty segment
    EXPECT_EQ(a, b) << threads << " threads";
  }
}

TEST(RunningMoments, StableForLargeOffsets) {
  // Mean 1e8 and unit-scale spread: naive sums of squares would lose every digit.
  const int d = 2, lag = 1;
  const auto segs = make_segments(d, 1e8);
  RunningMoments acc(d, lag);
  for (const auto& s : segs) acc.add_segment(s);
  const FrameMatrix all = stack_rows(segs, 0, false);
  const Eigen::VectorXd m = mean_of(all);
  const Eigen::MatrixXd ref = cross_cov(all, m, all, m);
  EXPECT_LT(max_abs(acc.instantaneous().c00 - ref) / max_abs(ref), 1e-7);
}

TEST(RunningMoments, FlatStateRoundTripsExactly) {
  RunningMoments acc(3, 2);
  for (const auto& s : make_segments(3)) acc.add_segment(s);
  const auto flat = acc.to_flat();
  const RunningMoments back = RunningMoments::from_flat(flat);
  EXPECT_EQ(back.to_flat(), flat);
  EXPECT_EQ(back.n_pairs(), acc.n_pairs());
  EXPECT_EQ(back.lagged().c0t, acc.lagged().c0t);
  // Continuing after a restore equals continuing the original, bitwise.
  RunningMoments a2 = acc, b2 = back;
  a2.add_segment(random_frames(40, 3, 99));
  b2.add_segment(random_frames(40, 3, 99));
  EXPECT_EQ(a2.to_flat(), b2.to_flat());

  auto bad = flat;
  bad[0] = 2.0;
  EXPECT_THROW(RunningMoments::from_flat(bad), core::InputError);
  bad = flat;
  bad.pop_back();
  EXPECT_THROW(RunningMoments::from_flat(bad), core::InputError);
  bad = flat;
  bad[5] = -1;
  EXPECT_THROW(RunningMoments::from_flat(bad), core::InputError);
}

TEST(RunningMoments, RejectsMismatchedInput) {
  RunningMoments acc(3, 2);
  EXPECT_THROW(acc.add_segment(random_frames(10, 2, 1)), core::InputError);
  EXPECT_THROW(acc.merge(RunningMoments(3, 1)), core::InputError);
  EXPECT_THROW(acc.instantaneous(), core::InputError);
  EXPECT_THROW(RunningMoments(0, 1), core::InputError);
  EXPECT_THROW(RunningMoments(2, -1), core::InputError);
  RunningMoments inst(2, 0);
  inst.add_segment(random_frames(10, 2, 1));
  EXPECT_EQ(inst.n_pairs(), 0);
  EXPECT_THROW(inst.lagged(), core::InputError);
}

}  // namespace
}  // namespace trails::analysis
