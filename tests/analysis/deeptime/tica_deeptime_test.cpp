// Known answers from deeptime (tests/data/deeptime, docs/analysis.md): TICA at lag 10, dim 2,
// kinetic map, epsilon 1e-6 on the 10 x 10^5 x 50 `feat50` set. The fit from deeptime's own
// moments (mean, symmetrised C00 and C0t) always runs; the moments and the projection from the
// data need the 400 MB feat50 inputs and run when the build has TRAILS_DEEPTIME_FEAT50=ON.
#include <gtest/gtest.h>

#include <cstdio>

#include "deeptime_data.h"
#include "trails/analysis/moments.h"
#include "trails/analysis/reversible_moments.h"
#include "trails/analysis/tica.h"

namespace an = trails::analysis;
using namespace trails::deeptime_test;

namespace {

an::TicaOptions deeptime_options() {
  an::TicaOptions o;
  o.dim = 2;
  o.epsilon = 1e-6;
  o.scaling = an::TicaScaling::KineticMap;
  return o;
}

// Columns equal up to one sign per column.
double max_abs_diff_up_to_sign(const RowMatrix& a, const RowMatrix& b) {
  double worst = 0;
  for (Eigen::Index j = 0; j < a.cols(); ++j) {
    const double plus = (a.col(j) - b.col(j)).cwiseAbs().maxCoeff();
    const double minus = (a.col(j) + b.col(j)).cwiseAbs().maxCoeff();
    worst = std::max(worst, std::min(plus, minus));
  }
  return worst;
}

void expect_model_matches(const an::TicaModel& m, double tol) {
  EXPECT_EQ(m.rank, 50);
  EXPECT_EQ(m.dim, 2);
  EXPECT_LT(max_abs_diff(m.eigenvalues, reference("tica_eigenvalues")), tol);
  std::printf("measured: TICA eigenvalues max abs diff %.3g\n",
              max_abs_diff(m.eigenvalues, reference("tica_eigenvalues")));
  EXPECT_LT(max_rel_diff(m.timescales(), reference("tica_timescales")), tol * 100);
  const RowMatrix coef = m.projection.coefficients;
  const RowMatrix ref = reference("tica_coefficients");
  EXPECT_LT(max_abs_diff_up_to_sign(coef, ref), tol * ref.cwiseAbs().maxCoeff());
}

}  // namespace

TEST(DeeptimeTica, FitFromDeeptimesMomentsEqualsDeeptime) {
  an::Covariances cov;
  cov.lagtime = 10;
  cov.mean_0 = cov.mean_t = reference("tica_mean").col(0);
  cov.c00 = cov.ctt = reference("tica_cov00");
  cov.c0t = reference("tica_cov0t");
  cov.mean_removed = cov.symmetrized = true;
  cov.n_samples = 999900;
  expect_model_matches(an::fit_tica(cov, deeptime_options()), 1e-12);
}

#ifdef TRAILS_DEEPTIME_FEAT50
TEST(DeeptimeTica, MomentsFitAndProjectionFromFeat50EqualDeeptime) {
  const RowMatrix f = read_matrix(input_dir() / "feat50.npy");  // (10, 1e5, 50)
  const Eigen::Map<const RowMatrix> frames(f.data(), f.size() / 50, 50);
  const std::vector<std::int64_t> lengths(10, 100000);
  an::RunningMoments running(50, 10);  // the campaign path
  running.add_segments(frames, lengths, 0);
  an::ReversibleMoments fast(50, 10);  // the fast path
  fast.add_segments(frames, lengths, 0);
  const RowMatrix c00 = reference("tica_cov00"), c0t = reference("tica_cov0t");
  const double scale = c00.cwiseAbs().maxCoeff();
  for (const an::Covariances& cov :
       {running.lagged({an::MeanRemoval::Separate, true}), fast.covariances()}) {
    EXPECT_LT(max_abs_diff(cov.mean_0, reference("tica_mean")), 1e-12);
    EXPECT_LT(max_abs_diff(cov.c00, c00), 1e-12 * scale);
    EXPECT_LT(max_abs_diff(cov.c0t, c0t), 1e-12 * scale);
    const an::TicaModel m = an::fit_tica(cov, deeptime_options());
    expect_model_matches(m, 1e-10);
    const RowMatrix proj = m.transform(frames.topRows(1000));
    const RowMatrix ref = reference("tica_projection_traj0_first1000");
    EXPECT_LT(max_abs_diff_up_to_sign(proj, ref), 1e-9 * ref.cwiseAbs().maxCoeff());
  }
}
#endif
