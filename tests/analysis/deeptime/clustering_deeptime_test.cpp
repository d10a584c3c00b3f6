// Known answers from deeptime (tests/data/deeptime, docs/analysis.md): Lloyd's algorithm on the
// 10^6 x 2 three-hole data (`dw2d`) at k = 500 for 50 iterations, from X[::2000] and from
// deeptime's own k-means++ seeds, compared centre by centre and inertia by inertia; assignment
// to deeptime's final centres; and bitwise thread-count independence of the same run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

#include "deeptime_data.h"
#include "trails/analysis/clustering.h"
#include "trails/core/thread_pool.h"

namespace an = trails::analysis;
using namespace trails::deeptime_test;

namespace {

const RowMatrix& points() {  // dw2d (20, 50000, 2) reshaped to (1e6, 2), as deeptime was given
  static const RowMatrix x = [] {
    const RowMatrix raw = read_matrix(input_dir() / "dw2d.npy");
    return Eigen::Map<const RowMatrix>(raw.data(), raw.size() / 2, 2).eval();
  }();
  return x;
}

an::ClusterModel lloyd(const RowMatrix& init, int iterations,
                       trails::core::ThreadPool* pool = nullptr) {
  an::KMeansOptions o;
  o.k = 500;
  o.max_iter = iterations;
  o.tolerance = 0.0;  // deeptime did not converge within 50 iterations: run all 50
  o.initial_centres = init;
  o.pool = pool;
  return an::kmeans(points(), o);
}

void expect_matches(const an::ClusterModel& m, const std::string& centres_file,
                    const std::string& inertias_file) {
  EXPECT_EQ(m.iterations, 50);
  const double dc = max_abs_diff(m.centres, reference(centres_file));
  EXPECT_LT(dc, 1e-10);
  const RowMatrix inertias = Eigen::Map<const RowMatrix>(
      m.inertia_history.data(), static_cast<Eigen::Index>(m.inertia_history.size()), 1);
  const double di = max_rel_diff(inertias, reference(inertias_file));
  EXPECT_LT(di, 1e-12);
  std::printf("measured: %s max abs diff %.3g, %s max rel diff %.3g\n", centres_file.c_str(), dc,
              inertias_file.c_str(), di);
}

}  // namespace

TEST(DeeptimeKMeans, LloydFromFixedInitEqualsDeeptime) {
  RowMatrix init(500, 2);
  for (Eigen::Index c = 0; c < 500; ++c) init.row(c) = points().row(c * 2000);
  const an::ClusterModel m = lloyd(init, 50);
  expect_matches(m, "kmeans_fixedinit_centers", "kmeans_fixedinit_inertias");
}

TEST(DeeptimeKMeans, LloydIsBitwiseIndependentOfThreadCount) {
  RowMatrix init(500, 2);
  for (Eigen::Index c = 0; c < 500; ++c) init.row(c) = points().row(c * 2000);
  trails::core::ThreadPool one(1), three(3);
  const an::ClusterModel a = lloyd(init, 8, &one), b = lloyd(init, 8, &three);
  EXPECT_EQ(a.centres, b.centres);
  EXPECT_EQ(a.inertia_history, b.inertia_history);
  EXPECT_EQ(a.inertia, b.inertia);
}

TEST(DeeptimeKMeans, LloydFromDeeptimesKMeansPlusPlusSeedsEqualsDeeptime) {
  // deeptime's k-means++ draws from its own C++ RNG, so its seeds are taken as given.
  const an::ClusterModel m = lloyd(reference("kmeans_kpp_initial_centers"), 50);
  expect_matches(m, "kmeans_kpp_centers", "kmeans_kpp_inertias");
}

TEST(DeeptimeKMeans, AssignmentToDeeptimesCentresMatchesItsHistogram) {
  const RowMatrix centres = reference("kmeans_fixedinit_centers");
  const std::vector<int> labels = an::assign(centres, points());
  std::vector<long> hist(500, 0);
  for (int l : labels) ++hist[static_cast<std::size_t>(l)];
  std::sort(hist.begin(), hist.end(), std::greater<>());
  const auto top = reference_facts()["results"]["kmeans"]["fixedinit_assignment_hist_sorted_top5"];
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(hist[i], top[i].get<long>());
  // The pruned search agrees with a direct argmin over all centres (a slice of the points).
  for (Eigen::Index i = 0; i < points().rows(); i += 997) {
    Eigen::Index best = 0;
    (centres.rowwise() - points().row(i)).rowwise().squaredNorm().minCoeff(&best);
    ASSERT_EQ(labels[static_cast<std::size_t>(i)], best) << "point " << i;
  }
}
