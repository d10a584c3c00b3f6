// Binner (binning/binner.h) for every scheme: every point gets a bin in [0, total_bins()), the
// frame grid's bin counts reach the fit (resolution-ladder sync), uniform is the frame grid,
// eigenvector bins axis 0 only, EdgeGrid known answers, and the checkpointed state restores the
// same bins (and refuses another scheme's).
#include "trails/binning/binner.h"

#include <vector>

#include <gtest/gtest.h>

#include "trails/binning/adaptive_binner.h"
#include "trails/binning/edge_grid.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"

namespace trails::binning {
namespace {

const BinningScheme kAll[] = {BinningScheme::Uniform, BinningScheme::Gradient, BinningScheme::Mab,
                              BinningScheme::Eigenvector};

std::vector<double> cloud(int n) {  // 2-D, row-major
  core::Rng rng(5);
  std::vector<double> p;
  for (int i = 0; i < n; ++i) {
    p.push_back(0.3 * rng.normal() + (i % 3 == 0 ? 1.0 : 0.0));
    p.push_back(0.5 * rng.normal());
  }
  return p;
}

std::unique_ptr<Binner> fitted(BinningScheme s, const std::vector<double>& pts,
                               const UniformGrid& frame) {
  auto b = make_binner(BinnerOptions{s, 100, 3});
  EXPECT_FALSE(b->fitted());
  b->fit(pts, frame);
  EXPECT_TRUE(b->fitted());
  EXPECT_EQ(b->scheme(), s);
  return b;
}

TEST(EdgeGrid, BinOfCentreAndJson) {
  const EdgeGrid g({{0.0, 1.0, 3.0}, {0.0, 0.5, 1.0, 4.0}});
  EXPECT_EQ(g.total_bins(), 6);
  EXPECT_EQ(g.bin_of(std::vector<double>{0.5, 0.7}), 0 * 3 + 1);
  EXPECT_EQ(g.bin_of(std::vector<double>{1.0, 1.0}), 1 * 3 + 2);  // a lower edge: bin above
  EXPECT_EQ(g.bin_of(std::vector<double>{-9.0, 99.0}), 2);        // clipped into the edge bins
  EXPECT_EQ(g.bin_of(std::vector<double>{3.0, 4.0}), 5);          // the upper end: last bin
  EXPECT_EQ(g.centre(5), (std::vector<double>{2.0, 2.5}));
  EXPECT_EQ(EdgeGrid::from_json(g.to_json()).to_json(), g.to_json());
  EXPECT_THROW(EdgeGrid::from_json(nlohmann::json{{1.0, 1.0}}), core::InputError);
  EXPECT_THROW((void)g.bin_of(std::vector<double>{std::nan(""), 0.0}), core::InputError);
}

TEST(Binner, EveryPointInRangeForEveryScheme) {
  const auto pts = cloud(3000);
  const UniformGrid frame({12, 9}, {-2.0, -2.0}, {2.5, 2.0});
  for (BinningScheme s : kAll) {
    const auto b = fitted(s, pts, frame);
    for (std::size_t i = 0; i < pts.size(); i += 2) {
      const auto bin = b->bin_of(std::span<const double>(pts).subspan(i, 2));
      ASSERT_GE(bin, 0) << scheme_name(s);
      ASSERT_LT(bin, b->total_bins()) << scheme_name(s);
    }
  }
}

TEST(Binner, UniformIsTheFrameGridAndEigenvectorBinsAxisZero) {
  const auto pts = cloud(500);
  const UniformGrid frame({12, 9}, {-2.0, -2.0}, {2.5, 2.0});
  const auto u = fitted(BinningScheme::Uniform, pts, frame);
  EXPECT_EQ(u->total_bins(), frame.total_bins());
  for (std::size_t i = 0; i < pts.size(); i += 2) {
    const std::span<const double> p = std::span<const double>(pts).subspan(i, 2);
    EXPECT_EQ(u->bin_of(p), frame.bin_of(p));
  }
  const auto e = fitted(BinningScheme::Eigenvector, pts, UniformGrid({7, 5}, {0, 0}, {7, 5}));
  EXPECT_EQ(e->total_bins(), 7);
  EXPECT_EQ(e->bin_of(std::vector<double>{3.5, -100.0}), 3);
  EXPECT_EQ(e->bin_of(std::vector<double>{3.5, 100.0}), 3);
  EXPECT_EQ(e->centre(3), (std::vector<double>{3.5}));
}

TEST(Binner, FrameBinCountsReachTheFit) {
  // A resolution-ladder refinement (30 → 34 bins per axis) gives the gradient binner more bins.
  const auto pts = cloud(5000);
  const auto coarse =
      fitted(BinningScheme::Gradient, pts, UniformGrid({30, 30}, {-3, -3}, {3.5, 3}));
  const auto fine = fitted(BinningScheme::Gradient, pts, UniformGrid({34, 34}, {-3, -3}, {3.5, 3}));
  EXPECT_EQ(coarse->total_bins(), 30 * 30);
  EXPECT_EQ(fine->total_bins(), 34 * 34);
}

TEST(Binner, StateRestoresTheSameBins) {
  const auto pts = cloud(2000);
  const UniformGrid frame({15, 10}, {-2.0, -2.0}, {2.5, 2.0});
  for (BinningScheme s : kAll) {
    const auto a = fitted(s, pts, frame);
    auto b = make_binner(BinnerOptions{s, 100, 3});
    b->restore(nlohmann::json::parse(a->state().dump()));  // through text, as the ledger does
    EXPECT_EQ(b->state(), a->state()) << scheme_name(s);
    for (std::size_t i = 0; i < pts.size(); i += 2) {
      const std::span<const double> p = std::span<const double>(pts).subspan(i, 2);
      ASSERT_EQ(b->bin_of(p), a->bin_of(p)) << scheme_name(s);
    }
    auto fresh = make_binner(BinnerOptions{s, 100, 3});
    fresh->restore(make_binner(BinnerOptions{s, 100, 3})->state());  // an unfitted state
    EXPECT_FALSE(fresh->fitted());
  }
  auto mab = make_binner(BinnerOptions{BinningScheme::Mab, 100, 3});
  EXPECT_THROW(mab->restore(fitted(BinningScheme::Gradient, pts, frame)->state()),
               core::InputError);
  EXPECT_THROW(mab->restore(nlohmann::json{{"version", 9}}), core::InputError);
}

}  // namespace
}  // namespace trails::binning
