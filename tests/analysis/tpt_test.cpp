// TPT and MFPT: committors of a birth-death chain against the closed form, flux conservation,
// 2-state MFPT = lag / p, reversed-chain backward committor, misuse.
#include "trails/analysis/tpt.h"

#include <vector>

#include <gtest/gtest.h>

#include "trails/core/error.h"

using namespace trails::analysis;

namespace {

constexpr int kN = 10;
double up(int i) { return i == kN - 1 ? 0.0 : 0.3 + 0.02 * i; }
double down(int i) { return i == 0 ? 0.0 : 0.2 + 0.01 * i; }

Eigen::MatrixXd birth_death() {
  Eigen::MatrixXd T = Eigen::MatrixXd::Zero(kN, kN);
  for (int i = 0; i < kN; ++i) {
    if (i + 1 < kN) T(i, i + 1) = up(i);
    if (i > 0) T(i, i - 1) = down(i);
    T(i, i) = 1.0 - up(i) - down(i);
  }
  return T;
}

Eigen::VectorXd birth_death_pi() {  // detailed balance: pi_{i+1} = pi_i up(i) / down(i+1)
  Eigen::VectorXd pi(kN);
  pi(0) = 1.0;
  for (int i = 0; i + 1 < kN; ++i) pi(i + 1) = pi(i) * up(i) / down(i + 1);
  return pi / pi.sum();
}

}  // namespace

TEST(Tpt, BirthDeathCommittorClosedForm) {
  // q_i = sum_{k<i} rho_k / sum_{k<N-1} rho_k, rho_0 = 1, rho_k = prod_{l=1..k} down(l)/up(l).
  std::vector<double> rho(kN, 1.0);
  for (int k = 1; k < kN; ++k) rho[k] = rho[k - 1] * down(k) / up(k);
  double total = 0.0;
  for (int k = 0; k < kN - 1; ++k) total += rho[k];
  const std::vector<int> A = {0}, B = {kN - 1};
  for (bool reversible : {true, false}) {
    const MsmModel model(birth_death(), 2.0, reversible, {}, birth_death_pi());
    const auto flux = reactive_flux(model, A, B);
    double partial = 0.0;
    for (int i = 0; i < kN; ++i) {
      EXPECT_NEAR(flux.forward_committor(i), partial / total, 1e-12) << i;
      EXPECT_NEAR(flux.backward_committor(i), 1.0 - partial / total, 1e-12) << i;
      if (i < kN - 1) partial += rho[i];
    }
    // In a chain all reactive flux passes every edge i -> i+1.
    for (int i = 0; i + 1 < kN; ++i) EXPECT_NEAR(flux.net_flux(i, i + 1), flux.total_flux, 1e-14);
    EXPECT_NEAR(flux.rate * flux.mfpt, 1.0, 1e-12);
    const Eigen::VectorXd pi = model.stationary_distribution();
    EXPECT_NEAR(flux.rate, flux.total_flux / pi.dot(flux.backward_committor) / 2.0, 1e-15);
  }
  const Eigen::VectorXd qm = backward_committor(birth_death(), birth_death_pi(), A, B);
  EXPECT_NEAR(qm(3), 1.0 - forward_committor(birth_death(), A, B)(3), 1e-12);
}

TEST(Tpt, TwoStateMfptIsLagOverP) {
  const double p = 0.05, q = 0.2, lag = 3.0;
  Eigen::MatrixXd T(2, 2);
  T << 1 - p, p, q, 1 - q;
  const MsmModel model(T, lag, true, {}, Eigen::Vector2d(q / (p + q), p / (p + q)));
  const std::vector<int> A = {0}, B = {1};
  EXPECT_NEAR(mfpt_to_set(model, B)(0), lag / p, 1e-10);
  EXPECT_EQ(mfpt_to_set(model, B)(1), 0.0);
  EXPECT_NEAR(mfpt(model, A, B), lag / p, 1e-10);
  EXPECT_NEAR(mfpt(model, B, A), lag / q, 1e-10);
  const auto flux = reactive_flux(model, A, B);
  EXPECT_NEAR(flux.mfpt, lag / p, 1e-10);
  EXPECT_NEAR(flux.rate, p / lag, 1e-14);
}

TEST(Tpt, MfptThreeStateByHand) {
  // From 0: m0 = 1 + 0.5 m0 + 0.5 m1; m1 = 1 + 0.5 m0 (+ 0.5 * 0) → m0 = 6, m1 = 4 steps.
  Eigen::MatrixXd T(3, 3);
  T << 0.5, 0.5, 0.0, 0.5, 0.0, 0.5, 0.0, 0.5, 0.5;
  const MsmModel model(T, 1.0, false);
  const Eigen::VectorXd m = mfpt_to_set(model, std::vector<int>{2});
  EXPECT_NEAR(m(0), 6.0, 1e-12);
  EXPECT_NEAR(m(1), 4.0, 1e-12);
}

TEST(Tpt, Misuse) {
  const MsmModel model(birth_death(), 1.0, true, {}, birth_death_pi());
  EXPECT_THROW(reactive_flux(model, std::vector<int>{0, 1}, std::vector<int>{1}),
               trails::core::InputError);
  EXPECT_THROW(reactive_flux(model, std::vector<int>{}, std::vector<int>{1}),
               trails::core::InputError);
  EXPECT_THROW(mfpt_to_set(model, std::vector<int>{kN}), trails::core::InputError);
  Eigen::MatrixXd absorbing = Eigen::MatrixXd::Identity(3, 3);
  EXPECT_THROW(forward_committor(absorbing, std::vector<int>{0}, std::vector<int>{2}),
               trails::core::InputError);
}
