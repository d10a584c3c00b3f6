// Analytic potentials of the built-in engine: gradients against central finite differences at
// many points for every potential, known-answer energies (Müller–Brown minima), default start
// points and plot boxes of the documented sizes, and the registry's validation.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "trails/core/error.h"
#include "trails/core/rng.h"
#include "trails/engines/builtin/potential.h"

namespace trails::engines::builtin {
namespace {

config::BuiltinEngineConfig config_for(config::Potential potential, int dimension = 2) {
  config::BuiltinEngineConfig c;
  c.potential = potential;
  c.dimension = dimension;
  return c;
}

// Central differences with h = 1e-6 have O(h^2) truncation and O(eps/h) rounding error; the
// tolerance is relative to the gradient's size so the steep Müller–Brown walls are fair.
void expect_gradient_matches_differences(const Potential& potential, std::vector<double> x) {
  const auto n = static_cast<std::size_t>(potential.dim());
  std::vector<double> grad(n);
  potential.gradient(x, grad);
  for (std::size_t i = 0; i < n; ++i) {
    const double h = 1e-6;
    const double saved = x[i];
    x[i] = saved + h;
    const double up = potential.energy(x);
    x[i] = saved - h;
    const double down = potential.energy(x);
    x[i] = saved;
    const double numeric = (up - down) / (2.0 * h);
    EXPECT_NEAR(grad[i], numeric, 1e-5 * (1.0 + std::abs(numeric)))
        << potential.name() << " coordinate " << i << " at x[0] = " << x[0];
  }
}

class GradientTest : public ::testing::TestWithParam<config::Potential> {};

TEST_P(GradientTest, MatchesFiniteDifferencesInsideThePlotBox) {
  const auto potential = make_potential(config_for(GetParam(), 3));
  const std::vector<double> box = potential->plot_box();
  core::Rng rng(2024);
  for (int sample = 0; sample < 200; ++sample) {
    std::vector<double> x(static_cast<std::size_t>(potential->dim()));
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] = box[2 * i] + (box[2 * i + 1] - box[2 * i]) * rng.uniform();
    }
    expect_gradient_matches_differences(*potential, x);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryPotential, GradientTest,
                         ::testing::Values(config::Potential::DoubleWell,
                                           config::Potential::MullerBrown,
                                           config::Potential::ThreeWell,
                                           config::Potential::Harmonic));

TEST(Potentials, DoubleWellValues) {
  const auto p = make_potential(config_for(config::Potential::DoubleWell));
  EXPECT_EQ(p->name(), "double_well");
  EXPECT_EQ(p->dim(), 1);
  EXPECT_DOUBLE_EQ(p->energy(std::vector<double>{0.0}), 1.0);
  EXPECT_DOUBLE_EQ(p->energy(std::vector<double>{1.0}), 0.0);
  EXPECT_DOUBLE_EQ(p->energy(std::vector<double>{-1.0}), 0.0);
  EXPECT_DOUBLE_EQ(p->energy(std::vector<double>{2.0}), 9.0);
  EXPECT_EQ(p->default_start(), std::vector<double>{-1.0});
  EXPECT_EQ(p->plot_box(), (std::vector<double>{-2.0, 2.0}));
}

// The three Müller–Brown minima as tabulated in the literature (Müller & Brown 1979).
TEST(Potentials, MullerBrownKnownMinima) {
  const auto p = make_potential(config_for(config::Potential::MullerBrown));
  EXPECT_EQ(p->dim(), 2);
  EXPECT_NEAR(p->energy(std::vector<double>{-0.558, 1.442}), -146.70, 0.01);
  EXPECT_NEAR(p->energy(std::vector<double>{0.623, 0.028}), -108.17, 0.01);
  EXPECT_NEAR(p->energy(std::vector<double>{-0.050, 0.467}), -80.77, 0.01);
  std::vector<double> grad(2);
  p->gradient(std::vector<double>{-0.558, 1.442}, grad);
  EXPECT_LT(std::hypot(grad[0], grad[1]), 0.5);  // rounded coordinates of a stationary point
  EXPECT_EQ(p->default_start(), (std::vector<double>{-0.558, 1.442}));
  EXPECT_EQ(p->plot_box(), (std::vector<double>{-1.5, 1.2, -0.5, 2.0}));
}

TEST(Potentials, ThreeWellFormula) {
  const auto p = make_potential(config_for(config::Potential::ThreeWell));
  EXPECT_EQ(p->dim(), 2);
  // At the origin: 3e^{-1/9} - 3e^{-25/9} - 10e^{-1} + 0.2/81.
  const double expected =
      3.0 * std::exp(-1.0 / 9.0) - 3.0 * std::exp(-25.0 / 9.0) - 10.0 * std::exp(-1.0) + 0.2 / 81.0;
  EXPECT_NEAR(p->energy(std::vector<double>{0.0, 0.0}), expected, 1e-12);
  // Mirror symmetry in x.
  EXPECT_DOUBLE_EQ(p->energy(std::vector<double>{0.7, 0.3}),
                   p->energy(std::vector<double>{-0.7, 0.3}));
  // The default start lies in the deep left well: lower than points 0.4 away on every side.
  const double start = p->energy(std::vector<double>{-1.0, 0.0});
  for (auto [dx, dy] : {std::pair{0.4, 0.0}, {-0.4, 0.0}, {0.0, 0.4}, {0.0, -0.4}}) {
    EXPECT_LT(start, p->energy(std::vector<double>{-1.0 + dx, dy}));
  }
  EXPECT_EQ(p->default_start(), (std::vector<double>{-1.0, 0.0}));
  EXPECT_EQ(p->plot_box(), (std::vector<double>{-2.0, 2.0, -1.5, 2.5}));
}

TEST(Potentials, HarmonicIsNDimensional) {
  const auto p = make_potential(config_for(config::Potential::Harmonic, 5));
  EXPECT_EQ(p->dim(), 5);
  EXPECT_DOUBLE_EQ(p->energy(std::vector<double>{1, 2, 0, 0, -1}), 3.0);
  EXPECT_EQ(p->default_start(), std::vector<double>(5, 0.0));
  EXPECT_EQ(p->plot_box().size(), 10u);
  EXPECT_THROW(make_potential(config_for(config::Potential::Harmonic, 0)), core::ConfigError);
}

TEST(Potentials, BiasedWalkHasNoEnergy) {
  const auto p = make_potential(config_for(config::Potential::BiasedWalk));
  EXPECT_FALSE(p->has_energy());
  EXPECT_EQ(p->dim(), 1);
  EXPECT_EQ(p->default_start(), std::vector<double>{0.0});
  EXPECT_EQ(p->plot_box(), (std::vector<double>{0.0, 20.0}));
  EXPECT_TRUE(make_potential(config_for(config::Potential::DoubleWell))->has_energy());
}

}  // namespace
}  // namespace trails::engines::builtin
