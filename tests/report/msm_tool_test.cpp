// `trails msm --pcca K` (msm_of_dtrajs with pcca): the JSON block on a three-well chain whose
// metastable sets are known ({0,1}, {2,3}, {4,5}), consistency of its MFPTs with
// analysis::mfpt on the reported model, and the UsageErrors. The CLI is tested in
// tests/scripts/msm_cli.sh.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "trails/analysis/msm_model.h"
#include "trails/analysis/tpt.h"
#include "trails/core/error.h"
#include "trails/report/msm/msm_tool.h"

using namespace trails;
using nlohmann::json;

namespace {

// Six states in three blocks {0,1}, {2,3}, {4,5}: inside a block the chain hops freely, between
// the other blocks with probability `leak` per step (MFPT between blocks about 1 / leak). State 5
// leaves for state 4 more rarely than the other states hop, so block {4,5} is slower inside.
std::vector<int> three_wells(int frames, double leak, std::uint64_t seed) {
  std::uint64_t x = seed;
  const auto uniform = [&x] {  // splitmix64: the same stream on every platform
    x += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
  };
  std::vector<int> d{0};
  for (int t = 1; t < frames; ++t) {
    const int s = d.back();
    const int block = s / 2;
    const double u = uniform();
    int next = s;
    if (u < leak) {
      const int to = (block + (uniform() < 0.5 ? 1 : 2)) % 3;
      next = 2 * to + (uniform() < 0.5 ? 0 : 1);
    } else if (uniform() < (s == 5 ? 0.1 : 0.5)) {
      next = s ^ 1;  // the other state of the block
    }
    d.push_back(next);
  }
  return d;
}

std::set<std::set<int>> as_sets(const json& sets) {
  std::set<std::set<int>> out;
  for (const auto& s : sets) out.insert(std::set<int>(s.begin(), s.end()));
  return out;
}

}  // namespace

TEST(MsmToolPcca, ThreeWellsGiveTheBlocks) {
  const std::vector<std::vector<int>> dtrajs = {three_wells(60000, 0.002, 1),
                                                three_wells(40000, 0.002, 2)};
  const json j = report::msm_of_dtrajs(dtrajs, 1, true, {1, 2}, 3, 3);
  ASSERT_TRUE(j.contains("pcca"));
  const json& p = j["pcca"];
  EXPECT_EQ(p["n_sets"], 3);
  EXPECT_EQ(as_sets(p["sets"]), (std::set<std::set<int>>{{0, 1}, {2, 3}, {4, 5}}));
  ASSERT_EQ(p["memberships"].size(), 6u);
  for (const auto& row : p["memberships"]) {
    ASSERT_EQ(row.size(), 3u);
    double sum = 0;
    for (const auto& v : row) {
      EXPECT_GE(v.get<double>(), 0.0);
      sum += v.get<double>();
    }
    EXPECT_NEAR(sum, 1.0, 1e-10);
  }
  // assignments index the sets; sets hold original ids (here the active set is 0..5).
  ASSERT_EQ(p["assignments"].size(), 6u);
  for (int i = 0; i < 6; ++i) {
    const auto& set = p["sets"][p["assignments"][i].get<std::size_t>()];
    EXPECT_NE(std::find(set.begin(), set.end(), j["active_set"][i]), set.end()) << i;
  }
  // populations: sum of pi over each crisp set.
  const auto pi = j["stationary_distribution"].get<std::vector<double>>();
  double total = 0;
  for (int a = 0; a < 3; ++a) {
    double want = 0;
    for (const auto& s : p["sets"][a]) want += pi[s.get<std::size_t>()];
    EXPECT_NEAR(p["populations"][a].get<double>(), want, 1e-12);
    total += p["populations"][a].get<double>();
  }
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_GT(p["crispness"].get<double>(), 2.5);  // <= 3, near 3 for such separated wells
  EXPECT_LE(p["crispness"].get<double>(), 3.0 + 1e-9);
  ASSERT_EQ(p["coarse_transition_matrix"].size(), 3u);
  for (const auto& row : p["coarse_transition_matrix"]) {
    double sum = 0;
    for (const auto& v : row) sum += v.get<double>();
    EXPECT_NEAR(sum, 1.0, 1e-8);
  }
  // MFPT: 0 on the diagonal; off it, analysis::mfpt on the model of the JSON and set sizes of
  // the order 1 / leak (frames).
  Eigen::MatrixXd T(6, 6);
  for (int r = 0; r < 6; ++r) {
    for (int c = 0; c < 6; ++c) T(r, c) = j["transition_matrix"][r][c].get<double>();
  }
  const analysis::MsmModel model(T, 1, true, {}, Eigen::Map<const Eigen::VectorXd>(pi.data(), 6));
  for (int a = 0; a < 3; ++a) {
    for (int b = 0; b < 3; ++b) {
      const double got = p["mfpt"][a][b].get<double>();
      if (a == b) {
        EXPECT_EQ(got, 0.0);
        continue;
      }
      const auto A = p["sets"][a].get<std::vector<int>>();
      const auto B = p["sets"][b].get<std::vector<int>>();
      EXPECT_NEAR(got, analysis::mfpt(model, A, B), 1e-9 * got);
      EXPECT_GT(got, 300.0);
      EXPECT_LT(got, 3000.0);
    }
  }
}

TEST(MsmToolPcca, MfptInFramesScalesWithLagUnits) {
  // At lag 2 the MFPTs are still in frames: about the same as at lag 1, not half.
  const std::vector<std::vector<int>> dtrajs = {three_wells(100000, 0.002, 3)};
  const json j1 = report::msm_of_dtrajs(dtrajs, 1, true, {}, 3, 3);
  const json j2 = report::msm_of_dtrajs(dtrajs, 2, true, {}, 3, 3);
  EXPECT_EQ(as_sets(j1["pcca"]["sets"]), as_sets(j2["pcca"]["sets"]));
  const double m1 = j1["pcca"]["mfpt"][0][1].get<double>();
  // The set order may differ between the lags: find the pair that matches set 0 -> set 1 of j1.
  const auto s0 = std::set<int>(j1["pcca"]["sets"][0].begin(), j1["pcca"]["sets"][0].end());
  const auto s1 = std::set<int>(j1["pcca"]["sets"][1].begin(), j1["pcca"]["sets"][1].end());
  int a2 = -1, b2 = -1;
  for (int a = 0; a < 3; ++a) {
    const auto s = std::set<int>(j2["pcca"]["sets"][a].begin(), j2["pcca"]["sets"][a].end());
    if (s == s0) a2 = a;
    if (s == s1) b2 = a;
  }
  ASSERT_GE(a2, 0);
  ASSERT_GE(b2, 0);
  EXPECT_NEAR(j2["pcca"]["mfpt"][a2][b2].get<double>() / m1, 1.0, 0.1);
}

TEST(MsmToolPcca, NoKeyWithoutPcca) {
  const json j = report::msm_of_dtrajs({three_wells(5000, 0.01, 4)}, 1, true, {}, 3);
  EXPECT_FALSE(j.contains("pcca"));
}

TEST(MsmToolPcca, UsageErrors) {
  const std::vector<std::vector<int>> d = {three_wells(5000, 0.01, 5)};
  const auto message = [&](bool reversible, int k) -> std::string {
    try {
      report::msm_of_dtrajs(d, 1, reversible, {}, 3, k);
    } catch (const core::UsageError& e) {
      EXPECT_EQ(e.exit_code(), 2);
      return e.what();
    }
    return "no UsageError";
  };
  EXPECT_NE(message(true, 1).find("--pcca 1: give at least 2"), std::string::npos)
      << message(true, 1);
  EXPECT_NE(message(true, 6).find("the model has 6 active states"), std::string::npos)
      << message(true, 6);
  EXPECT_NE(message(true, 9).find("2 <= K < 6"), std::string::npos) << message(true, 9);
  EXPECT_NE(message(false, 3).find("drop --nonreversible"), std::string::npos) << message(false, 3);
  // Two active states leave no room for K >= 2.
  const std::vector<std::vector<int>> two = {{0, 0, 1, 1, 0, 1}};
  try {
    report::msm_of_dtrajs(two, 1, true, {}, 3, 2);
    ADD_FAILURE() << "no UsageError";
  } catch (const core::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("needs at least 3 active states"), std::string::npos)
        << e.what();
  }
}

TEST(MsmToolPcca, SetsHoldOriginalStateIds) {
  // Ids shifted by 3 (states 0..2 never visited): the sets name ids 3..8, assignments index sets.
  auto d = three_wells(60000, 0.002, 6);
  for (int& s : d) s += 3;
  const json j = report::msm_of_dtrajs({d}, 1, true, {}, 3, 3);
  EXPECT_EQ(j["active_set"], (std::vector<int>{3, 4, 5, 6, 7, 8}));
  const json& p = j["pcca"];
  EXPECT_EQ(as_sets(p["sets"]), (std::set<std::set<int>>{{3, 4}, {5, 6}, {7, 8}}));
  for (int i = 0; i < 6; ++i) {
    const auto& set = p["sets"][p["assignments"][i].get<std::size_t>()];
    EXPECT_NE(std::find(set.begin(), set.end(), i + 3), set.end()) << i;
  }
}
