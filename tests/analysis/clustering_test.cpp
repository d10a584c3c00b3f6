// Clustering: k-means recovers well-separated Gaussian blob centres, is bitwise deterministic for
// a seed and independent of the thread count, converges in one iteration from the solution;
// regular space against hand-counted centres; nearest-centre assignment; misuse.
#include "trails/analysis/clustering.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "trails/core/error.h"
#include "trails/core/rng.h"

using namespace trails::analysis;
using trails::core::InputError;
using trails::core::Rng;

namespace {

// Four 2-D blobs of sd 0.1 at the corners of a 10 x 10 square, points interleaved by blob.
RowMatrix blob_centres() {
  RowMatrix c(4, 2);
  c << 0, 0, 10, 0, 0, 10, 10, 10;
  return c;
}

std::vector<double> blobs(int per_blob, std::uint64_t seed) {
  const RowMatrix c = blob_centres();
  Rng rng(seed);
  std::vector<double> data;
  for (int i = 0; i < per_blob; ++i)
    for (int b = 0; b < 4; ++b)
      for (int j = 0; j < 2; ++j) data.push_back(c(b, j) + 0.1 * rng.normal());
  return data;
}

bool same_bits(const RowMatrix& a, const RowMatrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.size())) == 0;
}

}  // namespace

TEST(KMeans, RecoversBlobCentres) {
  const auto data = blobs(250, 7);
  const auto X = points_view(data, 1000, 2);
  const auto model = kmeans(X, {.k = 4, .seed = 42});
  EXPECT_TRUE(model.converged);
  const RowMatrix truth = blob_centres();
  for (Eigen::Index b = 0; b < 4; ++b) {
    double best = 1e300;
    for (Eigen::Index c = 0; c < 4; ++c)
      best = std::min(best, (model.centres.row(c) - truth.row(b)).norm());
    EXPECT_LT(best, 0.03) << "blob " << b;  // sd of a mean of 250 points is ~0.006
  }
  // Inertia ~ n * d * sd^2 = 1000 * 2 * 0.01.
  EXPECT_NEAR(model.inertia, 20.0, 3.0);
  const auto labels = assign(model, X);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(labels[i], labels[i % 4]);
  EXPECT_EQ(std::set<int>(labels.begin(), labels.end()).size(), 4u);
}

TEST(KMeans, SameSeedSameBitsAnyThreadCount) {
  const auto data = blobs(500, 3);
  const auto X = points_view(data, 2000, 2);
  const auto a = kmeans(X, {.k = 7, .seed = 11, .n_threads = 1});
  const auto b = kmeans(X, {.k = 7, .seed = 11, .n_threads = 4});
  const auto c = kmeans(X, {.k = 7, .seed = 11, .n_threads = 3});
  EXPECT_TRUE(same_bits(a.centres, b.centres));
  EXPECT_TRUE(same_bits(a.centres, c.centres));
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(std::memcmp(&a.inertia, &b.inertia, sizeof(double)), 0);
  EXPECT_EQ(assign(a, X, 1), assign(a, X, 4));
  const auto other = kmeans(X, {.k = 7, .seed = 12, .n_threads = 1});
  EXPECT_FALSE(same_bits(a.centres, other.centres));  // the seed matters
}

TEST(KMeans, WarmStartAtSolutionConvergesInOneIteration) {
  const auto data = blobs(100, 5);
  const auto X = points_view(data, 400, 2);
  const auto first = kmeans(X, {.k = 4, .seed = 1});
  ASSERT_TRUE(first.converged);
  KMeansOptions warm{.k = 4, .seed = 99};
  warm.initial_centres = first.centres;
  const auto again = kmeans(X, warm);
  EXPECT_EQ(again.iterations, 1);
  EXPECT_TRUE(again.converged);
  EXPECT_LT((again.centres - first.centres).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(KMeans, MaxIterZeroKeepsInitialCentres) {
  const auto data = blobs(10, 5);
  const auto X = points_view(data, 40, 2);
  KMeansOptions o{.k = 4, .max_iter = 0};
  o.initial_centres = blob_centres();
  const auto m = kmeans(X, o);
  EXPECT_EQ(m.iterations, 0);
  EXPECT_FALSE(m.converged);
  EXPECT_TRUE(same_bits(m.centres, blob_centres()));
}

TEST(KMeans, KEqualsNAndDuplicatePoints) {
  RowMatrix X(3, 1);
  X << 1, 1, 1;
  const auto m = kmeans(X, {.k = 3, .seed = 0});
  EXPECT_DOUBLE_EQ(m.inertia, 0.0);
  EXPECT_EQ(assign(m, X), (std::vector<int>{0, 0, 0}));  // ties go to the lowest index
}

TEST(RegularSpace, HandCountedCentres) {
  RowMatrix X(7, 1);
  X << 0.0, 0.5, 1.0, 2.5, 1.9, 3.0, 5.0;
  // dmin 1: 0 is a centre; 0.5 too close; 1.0 at distance exactly 1 (>= dmin) is a centre;
  // 2.5 is; 1.9 (0.6 from 2.5) is not; 3.0 (0.5) is not; 5.0 is.
  const auto m = regular_space(X, 1.0, 100);
  ASSERT_EQ(m.centres.rows(), 4);
  EXPECT_TRUE(m.converged);
  EXPECT_EQ(m.centres(0, 0), 0.0);
  EXPECT_EQ(m.centres(1, 0), 1.0);
  EXPECT_EQ(m.centres(2, 0), 2.5);
  EXPECT_EQ(m.centres(3, 0), 5.0);
  EXPECT_EQ(assign(m, X), (std::vector<int>{0, 0, 1, 2, 2, 2, 3}));
  EXPECT_NEAR(m.inertia, 0.25 + 0.36 + 0.25, 1e-12);
  const auto capped = regular_space(X, 1.0, 3);
  EXPECT_EQ(capped.centres.rows(), 3);
  EXPECT_FALSE(capped.converged);
}

TEST(RegularSpace, BlobsGiveOneCentrePerBlob) {
  const auto data = blobs(200, 9);
  const auto m = regular_space(points_view(data, 800, 2), 3.0, 50);
  EXPECT_EQ(m.centres.rows(), 4);
}

TEST(Clustering, Misuse) {
  const auto data = blobs(2, 1);
  const auto X = points_view(data, 8, 2);
  EXPECT_THROW(points_view(data, 5, 2), InputError);
  EXPECT_THROW(kmeans(X, {.k = 0}), InputError);
  EXPECT_THROW(kmeans(X, {.k = 9}), InputError);
  KMeansOptions bad{.k = 2};
  bad.initial_centres = RowMatrix::Zero(3, 2);
  EXPECT_THROW(kmeans(X, bad), InputError);
  EXPECT_THROW(regular_space(X, 0.0, 5), InputError);
  EXPECT_THROW(assign(RowMatrix::Zero(2, 3), X), InputError);
  RowMatrix nan(1, 1);
  nan << std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(kmeans(nan, {.k = 1}), InputError);
}
