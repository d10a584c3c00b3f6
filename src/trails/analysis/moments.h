// Streaming means and covariances (instantaneous and time-lagged) over many segments, merged
// pairwise (Chan, Golub & LeVeque 1979) so partial moments of iterations or threads combine.
// Pure numerics: no I/O. A segment is one walker's contiguous frames; time-lagged pairs never
// cross segments, and a segment with at most `lagtime` frames adds no pairs (but its frames
// count in the instantaneous moments). Cost: O(n d^2) per segment by blocked Eigen products.
// Throws core::InputError for size mismatches and malformed serialised state.
#pragma once

#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <vector>

namespace trails::analysis {

// Frames are rows, features columns (the layout of feature shards and numpy arrays).
using FrameMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// X^T X, both triangles.
Eigen::MatrixXd gram(const FrameMatrix& X);

// How the lagged covariances are centred.
enum class MeanRemoval {
  None,      // raw second moments E[x y^T]
  Separate,  // x about mean_0 (of the first n-tau frames), y about mean_t (deeptime VAMP)
  Shared,    // both about (mean_0 + mean_t) / 2 (Trails-MD's, compat:feature-vamp2-score)
};

struct LaggedOptions {
  MeanRemoval mean_removal = MeanRemoval::Separate;
  // Reversible estimate (deeptime TICA): mean = (mean_0 + mean_t)/2 (when centring),
  // C00 = Ctt = (Sxx + Syy) / 2w, C0t = (Sxy + Syx) / 2w, S the centred sums over pairs.
  bool symmetrize = false;
};

// Covariance matrices at one lag, normalised by the number of samples (no Bessel correction).
struct Covariances {
  int lagtime = 0;         // 0: instantaneous only (c0t, ctt empty)
  double n_samples = 0;    // frames (lagtime 0) or lagged pairs
  Eigen::VectorXd mean_0;  // subtracted from x (zero vector when mean_removed is false)
  Eigen::VectorXd mean_t;  // subtracted from y
  Eigen::MatrixXd c00, c0t, ctt;
  bool mean_removed = false;
  bool symmetrized = false;
};

class RunningMoments {
 public:
  // lagtime >= 1 also accumulates pairs (x_t, x_{t+lagtime}); lagtime 0: instantaneous only.
  RunningMoments(int n_features, int lagtime);

  int n_features() const { return d_; }
  int lagtime() const { return lag_; }
  std::int64_t n_frames() const { return n_; }
  std::int64_t n_pairs() const { return w_; }
  std::int64_t n_segments() const { return segments_; }
  std::int64_t n_segments_with_pairs() const { return segments_paired_; }

  // Adds one segment (frames x features). Equivalent to merge(of_segment(frames)), bitwise.
  void add_segment(const Eigen::Ref<const FrameMatrix>& frames);
  // Adds consecutive row blocks of `frames` as separate segments of the given exact lengths
  // (from the store's frame records); the lengths must sum to frames.rows(). The chunk products
  // run on up to n_threads threads of core::default_pool() and are folded in order,
  // so the result is bitwise the same for every n_threads and equals add_segment per block.
  void add_segments(const Eigen::Ref<const FrameMatrix>& frames,
                    std::span<const std::int64_t> segment_frames, int n_threads = 1);

  // Appends other's data after this one's. Merging into an empty accumulator copies, so folding
  // per-segment accumulators in segment order equals serial add_segment bitwise: a parallel
  // caller computes of_segment() per thread and merges in segment order, never completion order.
  void merge(const RunningMoments& other);
  static RunningMoments of_segment(const Eigen::Ref<const FrameMatrix>& frames, int lagtime);

  // Over all frames: mean and C00 (mean-free if remove_mean). Throws if no frames.
  Covariances instantaneous(bool remove_mean = true) const;
  // Over lagged pairs: C00 from x, C0t, Ctt from y (or symmetrised). Throws if no pairs.
  Covariances lagged(const LaggedOptions& options = {}) const;

  // Raw accumulator state (means and centred sums) for tests and diagnostics.
  const Eigen::VectorXd& mean() const { return mean_; }
  const Eigen::MatrixXd& centred_sum() const { return m2_; }

  // Flat, versioned state for checkpoints: exact (doubles copied, counts < 2^53).
  std::vector<double> to_flat() const;
  static RunningMoments from_flat(std::span<const double> flat);

  static constexpr int kChunkRows = 2048;  // rows per blocked product; fixed for bitwise results

 private:
  struct Chunk;
  struct ChunkSums;
  static ChunkSums chunk_sums(const Eigen::Ref<const FrameMatrix>& frames, const Chunk& chunk,
                              int lagtime);
  void absorb(const ChunkSums& sums);  // fold one chunk of the segment being built
  void merge_pairs(std::int64_t w, const Eigen::VectorXd& mx, const Eigen::VectorXd& my,
                   const Eigen::MatrixXd& sxx, const Eigen::MatrixXd& sxy,
                   const Eigen::MatrixXd& syy);

  int d_;
  int lag_;
  std::int64_t segments_ = 0, segments_paired_ = 0;
  // Instantaneous: every frame.
  std::int64_t n_ = 0;
  Eigen::VectorXd mean_;
  Eigen::MatrixXd m2_;  // sum (x - mean)(x - mean)^T
  // Lagged pairs x = frame t, y = frame t + lag, within segments.
  std::int64_t w_ = 0;
  Eigen::VectorXd mx_, my_;
  Eigen::MatrixXd sxx_, sxy_, syy_;  // centred sums about mx_, my_
};

}  // namespace trails::analysis
