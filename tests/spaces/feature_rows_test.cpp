// FeatureRows (spaces/feature_rows.h): the parallel copy and range equal the serial fold bit for
// bit, and a space on the built-in coordinates (copied with their range) equals the same space
// on features a source computes (the path of every other feature type).
#include "trails/spaces/feature_rows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "trails/core/rng.h"
#include "trails/spaces/space_stage.h"

namespace trails::spaces {
namespace {

// The fold SpaceStage ran before the parallel pass: row 0, then std::min/std::max row by row.
FeatureRows::Range serial_range(const std::vector<double>& x, int d) {
  FeatureRows::Range r;
  if (x.empty()) return r;
  r.lo.assign(x.begin(), x.begin() + d);
  r.hi = r.lo;
  for (std::size_t row = 1; row < x.size() / static_cast<std::size_t>(d); ++row) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(d); ++i) {
      r.lo[i] = std::min(r.lo[i], x[row * static_cast<std::size_t>(d) + i]);
      r.hi[i] = std::max(r.hi[i], x[row * static_cast<std::size_t>(d) + i]);
    }
  }
  return r;
}

std::vector<std::uint64_t> bits(std::span<const double> v) {
  std::vector<std::uint64_t> b;
  for (const double x : v) b.push_back(std::bit_cast<std::uint64_t>(x));
  return b;
}

std::vector<double> random_rows(std::size_t rows, int d, std::uint64_t seed) {
  core::Rng rng = core::Rng::stream(seed, "feature-rows-test", 0);
  std::vector<double> x(rows * static_cast<std::size_t>(d));
  for (double& v : x) v = rng.normal();
  return x;
}

void expect_serial_bits(const std::vector<double>& x, int d) {
  const FeatureRows::Range want = serial_range(x, d);
  for (const int threads : {1, 0}) {
    FeatureRows::Range got;
    const FeatureRows copy = FeatureRows::copy_with_range(x, d, threads, got);
    EXPECT_EQ(bits(copy), bits(x));
    EXPECT_EQ(bits(got.lo), bits(want.lo));
    EXPECT_EQ(bits(got.hi), bits(want.hi));
    const FeatureRows::Range alone = feature_range(x, d, threads);
    EXPECT_EQ(bits(alone.lo), bits(want.lo));
    EXPECT_EQ(bits(alone.hi), bits(want.hi));
  }
}

TEST(FeatureRows, CopyAndRangeEqualTheSerialFoldBitForBit) {
  constexpr int d = 3;
  constexpr std::size_t rows = 3 * 4096 + 17;  // four row chunks, the last one short
  auto x = random_rows(rows, d, 1);
  expect_serial_bits(x, d);
  // NaN: ignored where the serial fold ignores it (also as a later chunk's first row), kept in
  // row 0; signed zeros: the first one wins; infinities are values.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  x[4096 * d + 0] = nan;        // first row of chunk 1
  x[(4096 * 2 + 5) * d] = nan;  // inside chunk 2
  for (std::size_t r = 0; r < rows; ++r) x[r * d + 1] = r % 2 ? 0.0 : -0.0;
  x[(4096 + 3) * d + 2] = -inf;
  expect_serial_bits(x, d);
  x[0] = nan;  // row 0
  x[2] = inf;
  expect_serial_bits(x, d);
  expect_serial_bits({}, d);
  expect_serial_bits({7.0, -1.0, 0.5}, d);  // one row
}

TEST(FeatureRows, LargeBlocksOnHugePagesCopyExactly) {
  const auto x = random_rows(5000, 256, 2);  // 10 MB: the huge-page allocation
  expect_serial_bits(x, 256);
}

// A feature source that computes the built-in coordinates as any other feature type does.
class ComputedCoordinates final : public features::FeatureSource {
 public:
  explicit ComputedCoordinates(int n) : n_(n) {}
  const std::vector<std::string>& types() const override { return types_; }
  int n_features(const std::string&) const override { return n_; }
  std::vector<double> compute(const std::string&, std::span<const double> frames, std::int64_t,
                              std::span<const double>) const override {
    return {frames.begin(), frames.end()};
  }

 private:
  int n_;
  std::vector<std::string> types_{"coordinates"};
};

TEST(FeatureRows, CopiedCoordinatesGiveTheSpaceOfComputedFeatures) {
  for (const std::string mode : {"tica", "pca"}) {
    SpaceOptions o;
    o.mode = mode;
    o.dim = 2;
    o.learned.lagtime = 5;
    o.learned.retrain_freq = 2;
    const ComputedCoordinates computed(4);
    SpaceStage copied(o, 4), from_source(o, computed);
    std::vector<features::FrameHistory::WalkerSpan> spans{{0, 3000}, {1, 2500}, {2, 40}};
    for (int it = 0; it < 4; ++it) {
      const auto x = random_rows(5540, 4, 10 + static_cast<std::uint64_t>(it));
      EXPECT_EQ(bits(copied.add_iteration(it, spans, x)),
                bits(from_source.add_iteration(it, spans, x)));
      EXPECT_EQ(bits(copied.latest_features()), bits(x));
    }
    EXPECT_EQ(copied.state().dump(), from_source.state().dump());
  }
}

}  // namespace
}  // namespace trails::spaces
