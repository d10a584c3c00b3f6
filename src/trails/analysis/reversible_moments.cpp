// Reversible moments: per-block symmetric rank updates about a per-segment reference, folded in
// block order, converted to the segment's mean and merged by Chan's pairwise update.
#include "trails/analysis/reversible_moments.h"

#include <algorithm>
#include <string>
#include <vector>

#include "trails/analysis/centred_gram.h"
#include "trails/core/error.h"

namespace trails::analysis {

namespace {

struct Sums {
  Eigen::MatrixXd g;  // sum of outer products
  Eigen::VectorXd s;  // sum of the rows (where asked for)
};

// Rows [row, row + rows) about c: r = x - c, or with pair_lag > 0, r = (x + x_{+pair_lag}) - c.
Sums centred_sums(const Eigen::Ref<const FrameMatrix>& frames, std::int64_t row, std::int64_t rows,
                  int pair_lag, const Eigen::VectorXd& c, ReversibleMoments::Summation how,
                  bool with_sum) {
  Sums r;
  if (how == ReversibleMoments::Summation::Rows) {
    const std::int64_t stride = frames.outerStride();
    const CentredRows in{frames.data() + row * stride,
                         pair_lag > 0 ? frames.data() + (row + pair_lag) * stride : nullptr,
                         stride,
                         rows,
                         static_cast<int>(frames.cols()),
                         c.data()};
    centred_gram(in, r.g, with_sum ? &r.s : nullptr);
    return r;
  }
  FrameMatrix D = frames.middleRows(row, rows);
  if (pair_lag > 0) D += frames.middleRows(row + pair_lag, rows);
  D.rowwise() -= c.transpose();
  r.g = gram(D);
  if (with_sum) r.s = D.colwise().sum().transpose();
  return r;
}

struct Segment {
  std::int64_t start = 0, n = 0;
  Eigen::VectorXd a;   // reference: mean of the first block of frames
  Eigen::VectorXd a2;  // 2 a, the reference of x_t + y_t
  std::size_t first_block = 0, end_block = 0;
};

// Rows [row, row + rows) of the frames (pair = false) or of x_t + y_t (pair = true), about a.
struct Block {
  std::size_t segment = 0;
  std::int64_t row = 0, rows = 0;
  bool pair = false;
};

Sums block_sums(const Eigen::Ref<const FrameMatrix>& frames, const Block& b, const Segment& seg,
                int lag, ReversibleMoments::Summation how) {
  if (b.pair) return centred_sums(frames, b.row, b.rows, lag, seg.a2, how, false);
  return centred_sums(frames, b.row, b.rows, 0, seg.a, how, true);
}

// A segment's pairs from its folded block sums about its reference a: x = rows [0, w), y = rows
// [lag, n), i.e. all frames minus the last / first `lag` rows; then shifted to its mean.
struct SegmentSums {
  std::int64_t w = 0;
  Eigen::VectorXd mean;
  Eigen::MatrixXd s2, q;
};

SegmentSums segment_sums(const Eigen::Ref<const FrameMatrix>& frames, const Segment& s, int lag,
                         ReversibleMoments::Summation how, const Eigen::MatrixXd& g_all,
                         const Eigen::MatrixXd& g_pair, const Eigen::VectorXd& s_all) {
  const Sums head = centred_sums(frames, s.start, lag, 0, s.a, how, true);
  const Sums tail = centred_sums(frames, s.start + s.n - lag, lag, 0, s.a, how, true);
  SegmentSums r;
  r.w = s.n - lag;
  const Eigen::MatrixXd s2_raw = 2.0 * g_all - head.g - tail.g;
  const Eigen::VectorXd sz = 2.0 * s_all - head.s - tail.s;
  const Eigen::VectorXd delta = sz / (2.0 * static_cast<double>(r.w));
  const Eigen::MatrixXd shift = (2.0 * static_cast<double>(r.w)) * (delta * delta.transpose());
  r.mean = s.a + delta;
  r.s2 = s2_raw - shift;
  r.q = g_pair - s2_raw - shift;
  return r;
}

}  // namespace

ReversibleMoments::ReversibleMoments(int n_features, int lagtime, Summation summation)
    : d_(n_features), lag_(lagtime), summation_(summation) {
  if (n_features < 1 || lagtime < 1)
    throw core::InputError("ReversibleMoments: expected n_features >= 1 and lagtime >= 1, got " +
                           std::to_string(n_features) + " and " + std::to_string(lagtime));
  mean_ = Eigen::VectorXd::Zero(d_);
  s2_ = q_ = Eigen::MatrixXd::Zero(d_, d_);
}

void ReversibleMoments::add_segments(const Eigen::Ref<const FrameMatrix>& frames,
                                     std::span<const std::int64_t> segment_frames, int n_threads,
                                     core::ThreadPool* pool) {
  if (frames.cols() != d_)
    throw core::InputError("ReversibleMoments::add_segments: expected " + std::to_string(d_) +
                           " feature columns, got " + std::to_string(frames.cols()));
  std::int64_t total = 0;
  for (const std::int64_t len : segment_frames) {
    if (len < 0)
      throw core::InputError("ReversibleMoments::add_segments: negative segment length " +
                             std::to_string(len));
    total += len;
  }
  if (total != frames.rows())
    throw core::InputError("ReversibleMoments::add_segments: segment lengths sum to " +
                           std::to_string(total) + " but the feature block has " +
                           std::to_string(frames.rows()) + " rows");
  std::vector<Segment> segs;
  std::vector<Block> blocks;
  std::int64_t start = 0;
  for (const std::int64_t len : segment_frames) {
    if (len > lag_) {
      Segment s{start, len, {}, {}, blocks.size(), 0};
      s.a = frames.middleRows(start, std::min(len, kBlockRows)).colwise().mean().transpose();
      s.a2 = 2.0 * s.a;
      for (std::int64_t r = 0; r < len; r += kBlockRows)
        blocks.push_back({segs.size(), start + r, std::min(kBlockRows, len - r), false});
      for (std::int64_t r = 0; r < len - lag_; r += kBlockRows)
        blocks.push_back({segs.size(), start + r, std::min(kBlockRows, len - lag_ - r), true});
      s.end_block = blocks.size();
      segs.push_back(std::move(s));
    }
    start += len;
  }
  // Block sums of every segment, in waves of kWave blocks across segments (so many short
  // walker segments run in parallel too), each folded into its segment in block order; a
  // segment is merged once its last block is folded. Segments merge in order, so the result is
  // bitwise the same for every thread count and equals one add_segments call per segment.
  core::ThreadPool& p = pool ? *pool : core::default_pool();
  constexpr std::size_t kWave = 64;  // blocks in memory at once
  std::vector<Sums> sums;
  std::size_t seg = 0;
  Eigen::MatrixXd g_all, g_pair;
  Eigen::VectorXd s_all;
  const auto open_segment = [&] {
    g_all = g_pair = Eigen::MatrixXd::Zero(d_, d_);
    s_all = Eigen::VectorXd::Zero(d_);
  };
  open_segment();
  for (std::size_t w0 = 0; w0 < blocks.size(); w0 += kWave) {
    const std::size_t count = std::min(kWave, blocks.size() - w0);
    sums.assign(count, Sums{});
    p.parallel_for(
        count, 1,
        [&](std::size_t b, std::size_t e) {
          for (std::size_t i = b; i < e; ++i)
            sums[i] =
                block_sums(frames, blocks[w0 + i], segs[blocks[w0 + i].segment], lag_, summation_);
        },
        n_threads);
    for (std::size_t i = 0; i < count; ++i) {  // folded in block order
      if (blocks[w0 + i].pair) {
        g_pair += sums[i].g;
      } else {
        g_all += sums[i].g;
        s_all += sums[i].s;
      }
      if (w0 + i + 1 == segs[seg].end_block) {
        const SegmentSums r =
            segment_sums(frames, segs[seg], lag_, summation_, g_all, g_pair, s_all);
        merge(r.w, r.mean, r.s2, r.q);
        ++seg;
        open_segment();
      }
    }
  }
}

void ReversibleMoments::merge(const ReversibleMoments& other) {
  if (other.d_ != d_ || other.lag_ != lag_ || other.summation_ != summation_)
    throw core::InputError(
        "ReversibleMoments::merge: expected " + std::to_string(d_) + " features at lag " +
        std::to_string(lag_) + ", got " + std::to_string(other.d_) + " at lag " +
        std::to_string(other.lag_) +
        (other.summation_ != summation_ ? " (and another summation order)" : ""));
  if (other.w_ > 0) merge(other.w_, other.mean_, other.s2_, other.q_);
}

// Chan et al.'s pairwise update on the 2w samples of Z; q shifts like s2 because the deviations
// of x and y from the mean of Z sum to zero (docs/analysis.md).
void ReversibleMoments::merge(std::int64_t w, const Eigen::VectorXd& mean,
                              const Eigen::MatrixXd& s2, const Eigen::MatrixXd& q) {
  if (w_ == 0) {
    w_ = w;
    mean_ = mean;
    s2_ = s2;
    q_ = q;
    return;
  }
  const double na = 2.0 * static_cast<double>(w_), nb = 2.0 * static_cast<double>(w);
  const Eigen::VectorXd delta = mean - mean_;
  const Eigen::MatrixXd corr = (na * nb / (na + nb)) * (delta * delta.transpose());
  s2_ += s2 + corr;
  q_ += q + corr;
  mean_ += (nb / (na + nb)) * delta;
  w_ += w;
}

Covariances ReversibleMoments::covariances() const {
  if (w_ == 0)
    throw core::InputError(
        "ReversibleMoments::covariances: no segment is longer than the lag "
        "time " +
        std::to_string(lag_) + " frames, so there are no pairs");
  Covariances c;
  c.lagtime = lag_;
  c.n_samples = static_cast<double>(w_);
  c.mean_0 = c.mean_t = mean_;
  // Exactly symmetric (Eigen folds a scalar into one factor of an outer product, so the
  // rank-1 corrections are symmetric only to rounding).
  c.c00 = (0.5 * (s2_ + s2_.transpose())) / (2.0 * c.n_samples);
  c.c0t = (0.5 * (q_ + q_.transpose())) / (2.0 * c.n_samples);
  c.ctt = c.c00;
  c.mean_removed = c.symmetrized = true;
  return c;
}

}  // namespace trails::analysis
