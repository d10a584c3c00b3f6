// Boltzmann sampling oracle: long double-well runs of both integrators must reproduce the exact
// density exp(-V/kT)/Z on a 40-bin histogram over [-2, 2], in total-variation (TV) distance.
// Why 0.02: with the run lengths below, a correct sampler gives TV ~ 0.005 (max 0.010 over 20
// seeds, dominated by the finite number of barrier crossings), while a noise amplitude off by 10%
// (kT_eff off by 21%) gives TV >= 0.031 even at kT = 1 (asserted below from the exact densities).
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>
#include <vector>

#include "trails/engines/builtin/builtin_engine.h"

namespace trails::engines::builtin {
namespace {

constexpr int kBins = 40;
constexpr double kLo = -2.0;
constexpr double kHi = 2.0;
constexpr double kMaxTv = 0.02;

double double_well(double x) { return (x * x - 1.0) * (x * x - 1.0); }

// Bin probabilities of exp(-V/kT) on [kLo, kHi], by a 200-point midpoint rule per bin. The
// mass outside the box is < 1e-5 at kT <= 1, so normalising inside the box is exact enough.
std::vector<double> exact_histogram(double kT) {
  constexpr int kSub = 200;
  std::vector<double> p(kBins, 0.0);
  double total = 0.0;
  for (int b = 0; b < kBins; ++b) {
    for (int j = 0; j < kSub; ++j) {
      const double x = kLo + (kHi - kLo) * (b + (j + 0.5) / kSub) / kBins;
      p[static_cast<std::size_t>(b)] += std::exp(-double_well(x) / kT);
    }
    total += p[static_cast<std::size_t>(b)];
  }
  for (double& q : p) q /= total;
  return p;
}

double total_variation(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += std::abs(a[i] - b[i]);
  return 0.5 * sum;
}

struct SamplingCase {
  config::Integrator integrator;
  double kT;
  double dt;
  std::int64_t total_steps;  // chosen so that ~1e3+ barrier crossings happen (see header)
  const char* label;
};

void PrintTo(const SamplingCase& c, std::ostream* out) { *out << c.label; }

class BoltzmannSampling : public ::testing::TestWithParam<SamplingCase> {};

TEST_P(BoltzmannSampling, DoubleWellHistogramMatchesExactDensity) {
  const SamplingCase& param = GetParam();
  config::BuiltinEngineConfig c;
  c.potential = config::Potential::DoubleWell;
  c.integrator = param.integrator;
  c.kT = param.kT;
  c.dt = param.dt;
  c.friction = 1.0;
  c.mass = 1.0;
  BuiltinEngine engine(c);
  auto instance = engine.make_instance();

  // 20 walkers, alternately started in either well so the start bias cancels.
  constexpr int kWalkers = 20;
  std::vector<double> histogram(kBins, 0.0);
  double inside = 0.0;
  double outside = 0.0;
  for (int w = 0; w < kWalkers; ++w) {
    SegmentTask task;
    task.walker = w;
    task.start.n_atoms = 1;
    task.start.spatial_dim = 1;
    task.start.positions = {w % 2 == 0 ? -1.0 : 1.0};
    task.steps = param.total_steps / kWalkers;
    task.stride = 10;
    task.seed = 1000 + static_cast<std::uint64_t>(w);
    const SegmentResult r = instance->run(task);
    ASSERT_TRUE(r.ok()) << r.error;
    for (double x : r.frames) {
      const int bin = static_cast<int>(std::floor((x - kLo) / (kHi - kLo) * kBins));
      if (bin < 0 || bin >= kBins) {
        outside += 1.0;
        continue;
      }
      histogram[static_cast<std::size_t>(bin)] += 1.0;
      inside += 1.0;
    }
  }
  EXPECT_LT(outside / (inside + outside), 1e-3);
  for (double& q : histogram) q /= inside;
  const double tv = total_variation(histogram, exact_histogram(param.kT));
  EXPECT_LT(tv, kMaxTv) << param.label;
  RecordProperty("total_variation", std::to_string(tv));
}

INSTANTIATE_TEST_SUITE_P(
    DoubleWell, BoltzmannSampling,
    ::testing::Values(
        SamplingCase{config::Integrator::Overdamped, 0.5, 1e-3, 60'000'000, "overdamped kT=0.5"},
        SamplingCase{config::Integrator::Overdamped, 1.0, 1e-3, 40'000'000, "overdamped kT=1"},
        SamplingCase{config::Integrator::Langevin, 0.5, 5e-3, 40'000'000, "langevin kT=0.5"},
        SamplingCase{config::Integrator::Langevin, 1.0, 5e-3, 30'000'000, "langevin kT=1"}),
    [](const auto& info) {
      return std::string(info.param.integrator == config::Integrator::Overdamped ? "Overdamped"
                                                                                 : "Langevin") +
             (info.param.kT < 0.75 ? "_kT0_5" : "_kT1");
    });

// The threshold is meaningful: a 10% error in the noise amplitude (kT_eff = 1.21 kT or
// 0.81 kT) moves the exact density by more than 1.5x the threshold at both temperatures.
TEST(BoltzmannSampling, ThresholdDetectsTenPercentNoiseError) {
  for (double kT : {0.5, 1.0}) {
    const std::vector<double> exact = exact_histogram(kT);
    EXPECT_GT(total_variation(exact, exact_histogram(1.21 * kT)), 1.5 * kMaxTv) << kT;
    EXPECT_GT(total_variation(exact, exact_histogram(0.81 * kT)), 1.5 * kMaxTv) << kT;
  }
}

}  // namespace
}  // namespace trails::engines::builtin
