// ReversibleMoments (the fast symmetrised moments for TICA) against RunningMoments'
// symmetrised lagged covariances, and its thread-count independence.
#include "trails/analysis/reversible_moments.h"

#include <gtest/gtest.h>

#include <vector>

#include "spaces_test_util.h"
#include "trails/analysis/tica.h"
#include "trails/core/error.h"
#include "trails/core/thread_pool.h"

namespace trails::analysis {
namespace {

// Segments of varied lengths: shorter than the lag, shorter than two lags, longer than a block.
struct Data {
  FrameMatrix frames;
  std::vector<std::int64_t> lengths{7, 1, 3, 9000, 4, 250, 2, 4097, 6, 12};
};

Data make_data(int d, double offset) {
  Data data;
  std::vector<FrameMatrix> segs;
  std::uint64_t seed = 31;
  for (const auto n : data.lengths) segs.push_back(testing::random_frames(n, d, seed++, offset));
  data.frames = testing::stack_rows(segs, 0, false);
  return data;
}

constexpr ReversibleMoments::Summation kSummations[] = {ReversibleMoments::Summation::Rows,
                                                        ReversibleMoments::Summation::Blocked};

TEST(ReversibleMoments, EqualsRunningMomentsSymmetrised) {
  const int d = 5, lag = 4;
  for (const auto how : kSummations)
    for (const double offset : {0.0, 50.0}) {  // far from the origin: the per-segment reference
      const Data data = make_data(d, offset);
      RunningMoments rm(d, lag);
      rm.add_segments(data.frames, data.lengths);
      const Covariances ref = rm.lagged({MeanRemoval::Separate, true});
      ReversibleMoments fast(d, lag, how);
      fast.add_segments(data.frames, data.lengths);
      const Covariances c = fast.covariances();
      EXPECT_EQ(c.n_samples, ref.n_samples);
      EXPECT_EQ(fast.n_pairs(), rm.n_pairs());
      EXPECT_TRUE(c.symmetrized && c.mean_removed);
      const double scale = ref.c00.cwiseAbs().maxCoeff();
      EXPECT_LT((c.mean_0 - ref.mean_0).cwiseAbs().maxCoeff(), 1e-12 * (1 + offset));
      EXPECT_LT((c.c00 - ref.c00).cwiseAbs().maxCoeff(), 1e-12 * scale);
      EXPECT_LT((c.c0t - ref.c0t).cwiseAbs().maxCoeff(), 1e-12 * scale);
      EXPECT_EQ(c.c0t, Eigen::MatrixXd(c.c0t.transpose()));
      EXPECT_EQ(c.c00, Eigen::MatrixXd(c.c00.transpose()));
      TicaOptions o;
      o.dim = 2;
      const TicaModel a = fit_tica(ref, o), b = fit_tica(c, o);
      EXPECT_LT((a.eigenvalues - b.eigenvalues).cwiseAbs().maxCoeff(), 1e-10);
    }
}

TEST(ReversibleMoments, SplitIntoCallsEqualsOneCallAndIsThreadIndependent) {
  const int d = 3, lag = 2;
  const Data data = make_data(d, 1.0);
  core::ThreadPool one(1), four(4);
  for (const auto how : kSummations) {
    ReversibleMoments a(d, lag, how), b(d, lag, how);
    a.add_segments(data.frames, data.lengths, 1, &one);
    b.add_segments(data.frames, data.lengths, 0, &four);
    EXPECT_EQ(a.covariances().c00, b.covariances().c00);
    EXPECT_EQ(a.covariances().c0t, b.covariances().c0t);
    EXPECT_EQ(a.covariances().mean_0, b.covariances().mean_0);
    // Segments added over two calls: the same merge sequence, so the same bits.
    ReversibleMoments c(d, lag, how);
    const std::int64_t split = 7 + 1 + 3 + 9000;
    c.add_segments(data.frames.topRows(split), std::span(data.lengths).first(4));
    c.add_segments(data.frames.bottomRows(data.frames.rows() - split),
                   std::span(data.lengths).subspan(4));
    EXPECT_EQ(a.covariances().c00, c.covariances().c00);
    EXPECT_EQ(a.covariances().c0t, c.covariances().c0t);
  }
}

TEST(ReversibleMoments, MergeOfPartsEqualsOneAccumulator) {
  const int d = 4, lag = 3;
  const Data data = make_data(d, 20.0);
  ReversibleMoments all(d, lag), first(d, lag), second(d, lag), merged(d, lag);
  all.add_segments(data.frames, data.lengths);
  const std::int64_t split = 7 + 1 + 3 + 9000;
  first.add_segments(data.frames.topRows(split), std::span(data.lengths).first(4));
  second.add_segments(data.frames.bottomRows(data.frames.rows() - split),
                      std::span(data.lengths).subspan(4));
  merged.merge(first);  // into an empty accumulator: an exact copy
  EXPECT_EQ(merged.covariances().c00, first.covariances().c00);
  merged.merge(second);
  EXPECT_EQ(merged.n_pairs(), all.n_pairs());
  const Covariances a = all.covariances(), m = merged.covariances();
  const double scale = a.c00.cwiseAbs().maxCoeff();
  EXPECT_LT((a.mean_0 - m.mean_0).cwiseAbs().maxCoeff(), 1e-12 * 20);
  EXPECT_LT((a.c00 - m.c00).cwiseAbs().maxCoeff(), 1e-12 * scale);
  EXPECT_LT((a.c0t - m.c0t).cwiseAbs().maxCoeff(), 1e-12 * scale);
  EXPECT_THROW(merged.merge(ReversibleMoments(d, lag + 1)), core::InputError);
  EXPECT_THROW(merged.merge(ReversibleMoments(d, lag, ReversibleMoments::Summation::Blocked)),
               core::InputError);
}

TEST(ReversibleMoments, BadInputIsAnInputError) {
  EXPECT_THROW(ReversibleMoments(0, 1), core::InputError);
  EXPECT_THROW(ReversibleMoments(2, 0), core::InputError);
  ReversibleMoments m(2, 5);
  const FrameMatrix f = FrameMatrix::Zero(4, 2);
  const std::vector<std::int64_t> short_one{4}, wrong{3};
  EXPECT_THROW(m.add_segments(f, wrong), core::InputError);
  m.add_segments(f, short_one);  // no pairs: adds nothing
  EXPECT_THROW(m.covariances(), core::InputError);
  EXPECT_THROW(m.add_segments(FrameMatrix::Zero(4, 3), short_one), core::InputError);
}

}  // namespace
}  // namespace trails::analysis
