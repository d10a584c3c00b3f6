// Running moments: per-chunk centred sums by matrix products, combined by Chan's pairwise update.
#include "trails/analysis/moments.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "trails/core/error.h"
#include "trails/core/thread_pool.h"

namespace trails::analysis {

namespace {

constexpr double kFlatVersion = 1.0;

// Chan et al. pairwise update of (n, mean, centred sum) by block B; sum_b centred about mean_b.
void chan_merge(std::int64_t& n, Eigen::VectorXd& mean, Eigen::MatrixXd& sum, std::int64_t nb,
                const Eigen::VectorXd& mean_b, const Eigen::MatrixXd& sum_b) {
  if (nb == 0) return;
  if (n == 0) {  // exact copy: keeps fold-in-order results bitwise equal to serial accumulation
    n = nb;
    mean = mean_b;
    sum = sum_b;
    return;
  }
  const double na = static_cast<double>(n), nbd = static_cast<double>(nb), nt = na + nbd;
  const Eigen::VectorXd delta = mean_b - mean;
  sum += sum_b;
  sum.noalias() += (na * nbd / nt) * (delta * delta.transpose());
  mean += (nbd / nt) * delta;
  n += nb;
}

}  // namespace

// S = Xc^T Xc by a symmetric rank-k update (half the flops of a general product).
Eigen::MatrixXd gram(const FrameMatrix& Xc) {
  Eigen::MatrixXd S = Eigen::MatrixXd::Zero(Xc.cols(), Xc.cols());
  S.selfadjointView<Eigen::Lower>().rankUpdate(Xc.transpose());
  S.triangularView<Eigen::StrictlyUpper>() = S.transpose();
  return S;
}

RunningMoments::RunningMoments(int n_features, int lagtime) : d_(n_features), lag_(lagtime) {
  if (n_features < 1)
    throw core::InputError("RunningMoments: expected n_features >= 1, got " +
                           std::to_string(n_features));
  if (lagtime < 0)
    throw core::InputError("RunningMoments: expected lagtime >= 0, got " + std::to_string(lagtime));
  mean_ = Eigen::VectorXd::Zero(d_);
  m2_ = Eigen::MatrixXd::Zero(d_, d_);
  mx_ = my_ = Eigen::VectorXd::Zero(d_);
  sxx_ = sxy_ = syy_ = Eigen::MatrixXd::Zero(d_, d_);
}

// One chunk of a segment: either lagged pairs (rows [row, row + rows) and the same shifted by
// the lag) or plain frames (the rows after the last pair start).
struct RunningMoments::Chunk {
  std::int64_t row = 0, rows = 0;
  bool lagged = false;
};

// Centred sums of one chunk: a pure function of the data, so any thread may compute it.
struct RunningMoments::ChunkSums {
  std::int64_t n = 0;
  bool lagged = false;
  Eigen::VectorXd mx, my;
  Eigen::MatrixXd sxx, sxy, syy;
};

RunningMoments::ChunkSums RunningMoments::chunk_sums(const Eigen::Ref<const FrameMatrix>& frames,
                                                     const Chunk& chunk, int lagtime) {
  ChunkSums cs;
  cs.n = chunk.rows;
  cs.lagged = chunk.lagged;
  const auto X = frames.middleRows(chunk.row, chunk.rows);
  cs.mx = X.colwise().mean().transpose();
  const FrameMatrix Xc = X.rowwise() - cs.mx.transpose();
  cs.sxx = gram(Xc);
  if (chunk.lagged) {
    const auto Y = frames.middleRows(chunk.row + lagtime, chunk.rows);
    cs.my = Y.colwise().mean().transpose();
    const FrameMatrix Yc = Y.rowwise() - cs.my.transpose();
    cs.syy = gram(Yc);
    cs.sxy.resize(Xc.cols(), Xc.cols());
    cs.sxy.noalias() = Xc.transpose() * Yc;
  }
  return cs;
}

void RunningMoments::absorb(const ChunkSums& cs) {
  if (cs.lagged) {
    segments_paired_ = 1;
    merge_pairs(cs.n, cs.mx, cs.my, cs.sxx, cs.sxy, cs.syy);
    return;
  }
  // All frames = the x halves of the pairs (rows [0, n - lag), already summed) + the rows
  // after them, so the instantaneous moments cost only the last `lag` frames extra.
  if (n_ == 0 && w_ > 0) {
    n_ = w_;
    mean_ = mx_;
    m2_ = sxx_;
  }
  chan_merge(n_, mean_, m2_, cs.n, cs.mx, cs.sxx);
}

RunningMoments RunningMoments::of_segment(const Eigen::Ref<const FrameMatrix>& frames,
                                          int lagtime) {
  RunningMoments s(static_cast<int>(frames.cols()), lagtime);
  s.add_segment(frames);
  return s;
}

void RunningMoments::add_segment(const Eigen::Ref<const FrameMatrix>& frames) {
  const std::int64_t len = frames.rows();
  add_segments(frames, std::span<const std::int64_t>(&len, 1), 1);
}

void RunningMoments::add_segments(const Eigen::Ref<const FrameMatrix>& frames,
                                  std::span<const std::int64_t> segment_frames, int n_threads) {
  if (frames.cols() != d_)
    throw core::InputError("RunningMoments::add_segments: expected " + std::to_string(d_) +
                           " feature columns, got " + std::to_string(frames.cols()));
  std::int64_t total = 0;
  for (std::size_t k = 0; k < segment_frames.size(); ++k) {
    if (segment_frames[k] < 0)
      throw core::InputError("RunningMoments::add_segments: segment " + std::to_string(k) +
                             " has a negative frame count " + std::to_string(segment_frames[k]));
    total += segment_frames[k];
  }
  if (total != frames.rows())
    throw core::InputError("RunningMoments::add_segments: segment frame counts sum to " +
                           std::to_string(total) + " but the feature block has " +
                           std::to_string(frames.rows()) + " rows");
  // The chunks of every segment, in order; segment k owns tasks [first[k], first[k + 1]).
  std::vector<Chunk> tasks;
  std::vector<std::size_t> first{0};
  std::int64_t start = 0;
  for (const std::int64_t len : segment_frames) {
    const std::int64_t pairs = lag_ >= 1 ? std::max<std::int64_t>(0, len - lag_) : 0;
    for (std::int64_t t0 = 0; t0 < pairs; t0 += kChunkRows)
      tasks.push_back({start + t0, std::min<std::int64_t>(kChunkRows, pairs - t0), true});
    for (std::int64_t t0 = pairs; t0 < len; t0 += kChunkRows)
      tasks.push_back({start + t0, std::min<std::int64_t>(kChunkRows, len - t0), false});
    first.push_back(tasks.size());
    start += len;
  }
  // Chunk sums are computed in waves (bounded memory), on threads if asked, and always folded
  // in task order: the result does not depend on n_threads, bitwise.
  const std::size_t threads = static_cast<std::size_t>(std::max(1, n_threads));
  const std::size_t wave = threads * 4;
  std::vector<ChunkSums> buffer;
  std::size_t buffer_start = 0;
  auto sums = [&](std::size_t i) -> const ChunkSums& {
    if (i >= buffer_start + buffer.size()) {
      buffer_start = i;
      const std::size_t count = std::min(wave, tasks.size() - i);
      buffer.assign(count, ChunkSums{});
      // One chunk sum per pool chunk; each writes only its own slot (core/thread_pool.h).
      core::default_pool().parallel_for(
          count, 1,
          [&](std::size_t begin, std::size_t end) {
            for (std::size_t j = begin; j < end; ++j)
              buffer[j] = chunk_sums(frames, tasks[i + j], lag_);
          },
          static_cast<int>(threads));
    }
    return buffer[i - buffer_start];
  };
  for (std::size_t k = 0; k + 1 < first.size(); ++k) {
    RunningMoments segment(d_, lag_);
    segment.segments_ = 1;
    for (std::size_t i = first[k]; i < first[k + 1]; ++i) segment.absorb(sums(i));
    merge(segment);
  }
}

void RunningMoments::merge(const RunningMoments& other) {
  if (other.d_ != d_ || other.lag_ != lag_)
    throw core::InputError("RunningMoments::merge: expected " + std::to_string(d_) +
                           " features at lag " + std::to_string(lag_) + ", got " +
                           std::to_string(other.d_) + " at lag " + std::to_string(other.lag_));
  segments_ += other.segments_;
  segments_paired_ += other.segments_paired_;
  chan_merge(n_, mean_, m2_, other.n_, other.mean_, other.m2_);
  if (other.w_ == 0) return;
  merge_pairs(other.w_, other.mx_, other.my_, other.sxx_, other.sxy_, other.syy_);
}

// Chan et al.'s pairwise update of the lagged-pair sums; into an empty accumulator it copies,
// which is what makes folding per-segment accumulators bitwise equal to serial accumulation.
void RunningMoments::merge_pairs(std::int64_t w, const Eigen::VectorXd& mx,
                                 const Eigen::VectorXd& my, const Eigen::MatrixXd& sxx,
                                 const Eigen::MatrixXd& sxy, const Eigen::MatrixXd& syy) {
  if (w_ == 0) {
    w_ = w;
    mx_ = mx;
    my_ = my;
    sxx_ = sxx;
    sxy_ = sxy;
    syy_ = syy;
    return;
  }
  const double na = static_cast<double>(w_), nb = static_cast<double>(w), nt = na + nb;
  const Eigen::VectorXd dx = mx - mx_, dy = my - my_;
  const double f = na * nb / nt;
  sxx_ += sxx;
  sxx_.noalias() += f * (dx * dx.transpose());
  sxy_ += sxy;
  sxy_.noalias() += f * (dx * dy.transpose());
  syy_ += syy;
  syy_.noalias() += f * (dy * dy.transpose());
  mx_ += (nb / nt) * dx;
  my_ += (nb / nt) * dy;
  w_ += w;
}

Covariances RunningMoments::instantaneous(bool remove_mean) const {
  if (n_ == 0) throw core::InputError("RunningMoments::instantaneous: no frames were added");
  Covariances c;
  c.lagtime = 0;
  c.n_samples = static_cast<double>(n_);
  c.mean_removed = remove_mean;
  c.c00 = m2_ / c.n_samples;
  if (remove_mean) {
    c.mean_0 = c.mean_t = mean_;
  } else {
    c.c00.noalias() += mean_ * mean_.transpose();
    c.mean_0 = c.mean_t = Eigen::VectorXd::Zero(d_);
  }
  return c;
}

Covariances RunningMoments::lagged(const LaggedOptions& options) const {
  if (lag_ < 1) throw core::InputError("RunningMoments::lagged: accumulated with lagtime 0");
  if (w_ == 0)
    throw core::InputError("RunningMoments::lagged: no segment is longer than the lag time " +
                           std::to_string(lag_) + " frames, so there are no time-lagged pairs");
  Covariances c;
  c.lagtime = lag_;
  c.n_samples = static_cast<double>(w_);
  c.symmetrized = options.symmetrize;
  c.mean_removed = options.mean_removal != MeanRemoval::None;
  const double w = c.n_samples;
  // Centres: x about cx, y about cy. Sum about c = S + w (m - c)(m' - c')^T.
  Eigen::VectorXd cx = Eigen::VectorXd::Zero(d_), cy = Eigen::VectorXd::Zero(d_);
  if (options.mean_removal == MeanRemoval::Separate && !options.symmetrize) {
    cx = mx_;
    cy = my_;
  } else if (options.mean_removal != MeanRemoval::None) {
    cx = cy = 0.5 * (mx_ + my_);
  }
  const Eigen::VectorXd a = mx_ - cx, b = my_ - cy;
  Eigen::MatrixXd c00 = sxx_ / w, c0t = sxy_ / w, ctt = syy_ / w;
  c00.noalias() += a * a.transpose();
  c0t.noalias() += a * b.transpose();
  ctt.noalias() += b * b.transpose();
  if (options.symmetrize) {
    c.c00 = 0.5 * (c00 + ctt);
    c.c0t = 0.5 * (c0t + c0t.transpose());
    c.ctt = c.c00;
  } else {
    c.c00 = std::move(c00);
    c.c0t = std::move(c0t);
    c.ctt = std::move(ctt);
  }
  c.mean_0 = cx;
  c.mean_t = cy;
  return c;
}

std::vector<double> RunningMoments::to_flat() const {
  const auto dd = static_cast<std::size_t>(d_) * static_cast<std::size_t>(d_);
  std::vector<double> f;
  f.reserve(8 + 3 * static_cast<std::size_t>(d_) + 4 * dd);
  auto put = [&f](const auto& m) { f.insert(f.end(), m.data(), m.data() + m.size()); };
  f.push_back(kFlatVersion);
  f.push_back(d_);
  f.push_back(lag_);
  f.push_back(static_cast<double>(segments_));
  f.push_back(static_cast<double>(segments_paired_));
  f.push_back(static_cast<double>(n_));
  put(mean_);
  put(m2_);
  f.push_back(static_cast<double>(w_));
  put(mx_);
  put(my_);
  put(sxx_);
  put(sxy_);
  put(syy_);
  return f;
}

RunningMoments RunningMoments::from_flat(std::span<const double> flat) {
  auto bad = [](const std::string& why) {
    return core::InputError("RunningMoments::from_flat: " + why);
  };
  if (flat.size() < 6) throw bad("expected at least 6 values, got " + std::to_string(flat.size()));
  if (flat[0] != kFlatVersion)
    throw bad("unknown state version " + std::to_string(flat[0]) + " (this build reads 1)");
  auto as_count = [&](double v, const char* what) {
    if (!(v >= 0) || v != std::floor(v) || v > 9007199254740992.0)
      throw bad(std::string("expected a non-negative integer ") + what + ", got " +
                std::to_string(v));
    return static_cast<std::int64_t>(v);
  };
  const auto d = as_count(flat[1], "feature count");
  const auto lag = as_count(flat[2], "lag time");
  if (d < 1 || d > 1000000) throw bad("feature count out of range: " + std::to_string(d));
  const auto ud = static_cast<std::size_t>(d);
  const std::size_t expected = 7 + 3 * ud + 4 * ud * ud;
  if (flat.size() != expected)
    throw bad("expected " + std::to_string(expected) + " values for " + std::to_string(d) +
              " features, got " + std::to_string(flat.size()));
  RunningMoments m(static_cast<int>(d), static_cast<int>(lag));
  m.segments_ = as_count(flat[3], "segment count");
  m.segments_paired_ = as_count(flat[4], "paired segment count");
  m.n_ = as_count(flat[5], "frame count");
  std::size_t at = 6;
  auto get = [&](auto& mat) {
    std::copy(flat.begin() + static_cast<std::ptrdiff_t>(at),
              flat.begin() + static_cast<std::ptrdiff_t>(at + static_cast<std::size_t>(mat.size())),
              mat.data());
    at += static_cast<std::size_t>(mat.size());
  };
  get(m.mean_);
  get(m.m2_);
  m.w_ = as_count(flat[at++], "pair count");
  get(m.mx_);
  get(m.my_);
  get(m.sxx_);
  get(m.sxy_);
  get(m.syy_);
  if (m.w_ > m.n_ || m.segments_paired_ > m.segments_)
    throw bad("inconsistent counts (pairs " + std::to_string(m.w_) + ", frames " +
              std::to_string(m.n_) + ")");
  return m;
}

}  // namespace trails::analysis
