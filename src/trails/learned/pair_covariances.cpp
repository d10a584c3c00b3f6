#include "trails/learned/pair_covariances.h"

#include "trails/analysis/vamp.h"
#include "trails/core/error.h"

namespace trails::learned {

analysis::Covariances pair_covariances(std::span<const double> rows, int d,
                                       std::span<const std::pair<std::int64_t, std::int64_t>> pairs,
                                       bool symmetrize) {
  if (pairs.empty()) throw core::InputError("learned model: no time-lagged pairs");
  const auto n = static_cast<double>(pairs.size());
  auto row = [&](std::int64_t i) {
    return Eigen::Map<const Eigen::VectorXd>(rows.data() + i * d, d);
  };
  Eigen::VectorXd m0 = Eigen::VectorXd::Zero(d), mt = Eigen::VectorXd::Zero(d);
  for (const auto& [a, b] : pairs) {
    m0 += row(a);
    mt += row(b);
  }
  m0 /= n;
  mt /= n;
  if (symmetrize) m0 = mt = 0.5 * (m0 + mt);
  Eigen::MatrixXd sxx = Eigen::MatrixXd::Zero(d, d), sxy = sxx, syy = sxx;
  for (const auto& [a, b] : pairs) {
    const Eigen::VectorXd x = row(a) - m0, y = row(b) - mt;
    sxx.selfadjointView<Eigen::Lower>().rankUpdate(x);
    syy.selfadjointView<Eigen::Lower>().rankUpdate(y);
    sxy.noalias() += x * y.transpose();
  }
  sxx = sxx.selfadjointView<Eigen::Lower>();
  syy = syy.selfadjointView<Eigen::Lower>();
  analysis::Covariances c;
  c.lagtime = 1;  // lagged covariances (the real lag is in the pairs)
  c.n_samples = n;
  c.mean_0 = m0;
  c.mean_t = mt;
  c.mean_removed = true;
  c.symmetrized = symmetrize;
  if (symmetrize) {
    c.c00 = c.ctt = (sxx + syy) / (2 * n);
    c.c0t = (sxy + sxy.transpose()) / (2 * n);
  } else {
    c.c00 = sxx / n;
    c.c0t = sxy / n;
    c.ctt = syy / n;
  }
  return c;
}

double pair_vamp2(std::span<const double> rows, int d,
                  std::span<const std::pair<std::int64_t, std::int64_t>> pairs) {
  return analysis::vamp2_score(pair_covariances(rows, d, pairs, false));
}

}  // namespace trails::learned
