// Known answers from deeptime (tests/data/deeptime, docs/analysis.md): sliding counts and the
// reversible MLE at lag 10 on the 500-state `dtraj` set, the ITS sweep over 10 lags, PCCA+ with
// 4 sets, and the 3-state sanity chain. deeptime's default MLE stops far from the fixed point on
// this metastable chain, so the tight (1e-8) comparisons are against its maxerr = 1e-15 runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

#include "deeptime_data.h"
#include "trails/analysis/counting.h"
#include "trails/analysis/msm_estimation.h"
#include "trails/analysis/msm_model.h"
#include "trails/analysis/pcca.h"
#include "trails/analysis/spectral.h"

namespace an = trails::analysis;
using namespace trails::deeptime_test;

namespace {

// Measured distance of the converged PCCA+ memberships to deeptime's tight-fmin run (both are
// optimisers stopped near the same optimum; docs/analysis.md).
constexpr double kPccaMembershipTolerance = 1e-5;  // measured 8.6e-7

const std::vector<std::vector<int>>& dtrajs() {
  static const auto d = read_dtrajs(input_dir() / "dtraj.npy");
  return d;
}

const an::MsmModel& lag10_msm() {
  static const an::MsmModel m = an::estimate_msm(dtrajs(), 10);
  return m;
}

}  // namespace

TEST(DeeptimeMsm, Lag10CountsMatchDeeptimesFacts) {
  const auto facts = reference_facts()["results"]["msm"];
  const an::CountModel c = an::estimate_counts(dtrajs(), 10);
  EXPECT_EQ(c.counts.sum(), facts["count_total"].get<double>());
  EXPECT_EQ((c.counts.array() > 0).count(), facts["count_nnz"].get<long>());
  EXPECT_EQ(static_cast<int>(c.active_set.size()), facts["n_states_active"].get<int>());
}

TEST(DeeptimeMsm, Lag10ReversibleMleEqualsConvergedDeeptime) {
  const an::MsmModel& m = lag10_msm();
  ASSERT_TRUE(m.mle_converged());
  const RowMatrix pi = m.stationary_distribution();
  const RowMatrix pi_tight = reference("msm_lag10_stationary_distribution_maxerr1e-15");
  EXPECT_LT(max_abs_diff(pi, pi_tight), 1e-12);
  EXPECT_LT(max_rel_diff(pi, pi_tight), 1e-8);
  std::printf("measured: pi vs maxerr1e-15 max abs %.3g, max rel %.3g; T vs default %.3g\n",
              max_abs_diff(pi, pi_tight), max_rel_diff(pi, pi_tight),
              max_abs_diff(m.transition_matrix(), reference("msm_lag10_transition_matrix")));
  // deeptime's default run (maxerr 1e-8) is 2.1e-8 (pi) and 4.2e-9 (T) from the fixed point
  // (reference.json); the converged MLE is within those distances of it.
  EXPECT_LT(max_abs_diff(pi, reference("msm_lag10_stationary_distribution")), 3e-8);
  const RowMatrix T = m.transition_matrix();
  EXPECT_LT(max_abs_diff(T, reference("msm_lag10_transition_matrix")), 1e-8);
  const Eigen::VectorXd ts = m.timescales(3);
  const auto ref_ts = reference_facts()["results"]["msm"]["timescales_top5"];
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(ts(i) / ref_ts[i].get<double>(), 1.0, 2e-6);
}

TEST(DeeptimeMsm, ItsSweepEqualsConvergedDeeptime) {
  const std::vector<std::int64_t> lags64 = read_ints(reference_dir() / "its_lagtimes.npy");
  const std::vector<int> lags(lags64.begin(), lags64.end());
  const an::ItsSweep its = an::implied_timescales_sweep(dtrajs(), lags, 10, 500);
  const RowMatrix tight = reference("its_timescales_maxerr1e-15");
  const RowMatrix ours = its.timescales;
  for (std::size_t a = 0; a < lags.size(); ++a) {
    EXPECT_EQ(its.n_active[a], 500) << "lag " << lags[a];
    EXPECT_TRUE(its.converged[a]) << "lag " << lags[a];
  }
  EXPECT_LT(max_rel_diff(ours, tight), 1e-8);
  std::printf("measured: ITS vs maxerr1e-15 max rel %.3g, vs default %.3g\n",
              max_rel_diff(ours, tight), max_rel_diff(ours, reference("its_timescales")));
  // deeptime's default stopping rule leaves up to 1.5e-6 relative (reference.json).
  EXPECT_LT(max_rel_diff(ours, reference("its_timescales")), 3e-6);
}

TEST(DeeptimeMsm, Pcca4MatchesDeeptimeUpToSetOrder) {
  const an::MsmModel& m = lag10_msm();
  const an::Pcca p = an::pcca(m, 4);
  const std::vector<std::int64_t> ref_assign = read_ints(reference_dir() / "pcca4_assignments.npy");
  ASSERT_EQ(ref_assign.size(), p.assignments.size());
  // Our set s corresponds to deeptime's set perm[s] (the deeptime label of its first state).
  std::vector<int> perm(4, -1);
  for (std::size_t i = 0; i < ref_assign.size(); ++i)
    if (perm[static_cast<std::size_t>(p.assignments[i])] < 0)
      perm[static_cast<std::size_t>(p.assignments[i])] = static_cast<int>(ref_assign[i]);
  std::vector<int> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  ASSERT_EQ(sorted, (std::vector<int>{0, 1, 2, 3}));
  for (std::size_t i = 0; i < ref_assign.size(); ++i)
    ASSERT_EQ(perm[static_cast<std::size_t>(p.assignments[i])], ref_assign[i]) << "state " << i;
  // Memberships: deeptime's Nelder-Mead stops at xtol = ftol = 1e-4; its tight run is the
  // optimum both approach (default vs tight differ by 1.3e-4, reference.json).
  RowMatrix chi(p.memberships.rows(), 4);
  for (int s = 0; s < 4; ++s) chi.col(perm[static_cast<std::size_t>(s)]) = p.memberships.col(s);
  const double to_tight = max_abs_diff(chi, reference("pcca4_memberships_tight_fmin"));
  EXPECT_LT(to_tight, kPccaMembershipTolerance);
  std::printf("measured: PCCA+ memberships vs tight fmin %.3g, vs default %.3g\n", to_tight,
              max_abs_diff(chi, reference("pcca4_memberships")));
  EXPECT_LT(max_abs_diff(chi, reference("pcca4_memberships")), 3e-4);
  RowMatrix pi_c(4, 1);
  for (int s = 0; s < 4; ++s) pi_c(perm[static_cast<std::size_t>(s)], 0) = p.coarse_stationary(s);
  EXPECT_LT(max_abs_diff(pi_c, reference("pcca4_coarse_stationary")), 1e-4);
  // deeptime's (M^T M)^-1 M^T P M, renormalised, equals the Kube-Weber matrix that Trails
  // reports to 1e-15 on deeptime's own memberships (docs/analysis.md).
  RowMatrix t_c(4, 4);
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      t_c(perm[static_cast<std::size_t>(a)], perm[static_cast<std::size_t>(b)]) =
          p.coarse_transition(a, b);
  const double dt = max_abs_diff(t_c, reference("pcca4_coarse_transition_matrix"));
  EXPECT_LT(dt, 1e-5);  // measured 7.1e-7
  std::printf("measured: PCCA+ coarse stationary %.3g, coarse T %.3g\n",
              max_abs_diff(pi_c, reference("pcca4_coarse_stationary")), dt);
}

TEST(DeeptimeMsm, Chain3SanityChain) {
  const auto d = read_dtrajs(input_dir() / "chain3.npy");
  const an::MsmModel m = an::estimate_msm(d, 1);
  EXPECT_LT(max_abs_diff(m.transition_matrix(), reference("chain3_transition_matrix")), 1e-8);
  EXPECT_LT(max_abs_diff(m.stationary_distribution(), reference("chain3_stationary_distribution")),
            1e-8);
  const auto ts = reference_facts()["results"]["chain3"]["timescales"];
  const Eigen::VectorXd t = m.timescales(2);
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(t(i), ts[i].get<double>(), 1e-8 * ts[i].get<double>());
}
