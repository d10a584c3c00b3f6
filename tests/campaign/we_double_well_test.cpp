// The weighted ensemble against an exact rate (docs/kinetics.md): overdamped diffusion on the
// built-in double well V(x) = (x² − 1)² (the engine's own Euler–Maruyama integrator, D = kT/γ),
// from the left well to x ≥ 1 with recycling. The exact mean first-passage time from x0 to b
// with a reflecting left end at −∞ is the quadrature
//   T(x0 → b) = (1/D) ∫_{x0}^{b} dy e^{V(y)/kT} ∫_{−∞}^{y} dz e^{−V(z)/kT},
// evaluated here by the trapezoid rule on a fine grid. The WE estimate (Hill relation, second
// half of the flux series) must be within 10 %.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "trails/analysis/hill_mfpt.h"
#include "trails/core/seeds.h"
#include "trails/engines/builtin/builtin_engine.h"
#include "trails/spawners/we_spawner.h"

namespace trails {
namespace {

constexpr double kT = 0.5;
constexpr double kSink = 1.0;

double potential(double x) { return (x * x - 1.0) * (x * x - 1.0); }

// T(x0 → b) by nested trapezoids: the inner integral is accumulated along the outer grid.
double exact_mfpt(double x0, double b, double diffusion) {
  const double lo = -4.0;  // e^{−V/kT} is below 1e-100 there: the reflecting end at −∞
  const int n = 400000;
  const double h = (b - lo) / n;
  double inner = 0.0, outer = 0.0;
  double prev_z = std::exp(-potential(lo) / kT), prev_term = 0.0;
  for (int i = 1; i <= n; ++i) {
    const double y = lo + i * h;
    const double z = std::exp(-potential(y) / kT);
    inner += 0.5 * h * (prev_z + z);
    prev_z = z;
    const double term = y >= x0 ? std::exp(potential(y) / kT) * inner : 0.0;
    outer += 0.5 * h * (prev_term + term);
    prev_term = term;
  }
  return outer / diffusion;
}

// One WE run of `iterations` on the double well with the given binning.scheme; every iteration's
// weights must sum to 1 to 1e-9. Returns WE MFPT / exact MFPT.
double mfpt_ratio(const binning::BinnerOptions& bins, int iterations) {
  config::BuiltinEngineConfig c;
  c.potential = config::Potential::DoubleWell;
  c.integrator = config::Integrator::Overdamped;
  c.kT = kT;
  c.dt = 1e-3;
  c.friction = 1.0;
  engines::builtin::BuiltinEngine engine(c);
  auto instance = engine.make_instance();

  const int steps = 20;  // τ = 0.02
  const binning::UniformGrid grid({12}, {-1.6}, {kSink});
  spawners::WeSpawner we(spawners::WeOptions{true, 4, {{{kSink, 1e9}}}, 0, bins});
  features::FrameHistory history(1);
  std::vector<double> starts(12, -1.0);
  std::vector<double> flux;
  for (std::int64_t it = 0; it < iterations; ++it) {
    std::vector<features::FrameHistory::WalkerSpan> spans;
    std::vector<double> cvs;
    for (std::size_t w = 0; w < starts.size(); ++w) {
      engines::SegmentTask task;
      task.iteration = it;
      task.walker = static_cast<std::int64_t>(w);
      task.start = engines::Configuration{1, 1, {starts[w]}, {}, {}};
      task.steps = steps;
      task.stride = steps;
      task.seed = core::walker_seed(42, it, static_cast<std::int64_t>(w));
      const auto r = instance->run(task);
      EXPECT_TRUE(r.ok()) << r.error;
      if (!r.ok()) return 0.0;
      spans.push_back({static_cast<std::int64_t>(w), 1});
      cvs.push_back(r.frames[0]);
    }
    history.append(it, spans, cvs);
    auto rng = core::Rng::stream(42, "spawn", static_cast<std::uint64_t>(it));
    const auto chosen = we.choose(history, grid, 0, rng);
    flux.push_back(*we.weighting()->recycled_flux);
    double total = 0.0;
    for (const double w : we.weighting()->weights) total += w;
    EXPECT_NEAR(total, 1.0, 1e-9) << "iteration " << it;
    starts.clear();
    for (const auto g : chosen) starts.push_back(history.point(g)[0]);
  }
  const double basis = history.point(*we.basis_frame())[0];
  const double exact = exact_mfpt(basis, kSink, kT / c.friction);
  const auto est = analysis::steady_state_mfpt(flux, steps * c.dt, 0.5);
  EXPECT_TRUE(est.mfpt);
  if (!est.mfpt) return 0.0;
  std::printf("double well kT %.2f, binning %s: WE MFPT %.3f, exact %.3f (ratio %.3f), x0 = %.3f\n",
              kT, std::string(binning::scheme_name(bins.scheme)).c_str(), *est.mfpt, exact,
              *est.mfpt / exact, basis);
  return *est.mfpt / exact;
}

TEST(WeRate, OverdampedDoubleWellMfptMatchesTheQuadrature) {
  EXPECT_NEAR(mfpt_ratio({}, 2500), 1.0, 0.10);
}

// The same with bins whose edges move between iterations (docs/kinetics.md, "Adaptive bins"):
// edges refitted to the live end points at the start of each iteration, fixed while resampling
// (eigenvector bins of a 1-D space are the uniform grid's).
TEST(WeRate, AdaptiveBinsDoubleWellMfptMatchesTheQuadrature) {
  EXPECT_NEAR(mfpt_ratio({binning::BinningScheme::Gradient, 100, 3}, 2500), 1.0, 0.10);
  EXPECT_NEAR(mfpt_ratio({binning::BinningScheme::Mab, 100, 3}, 2500), 1.0, 0.10);
}

}  // namespace
}  // namespace trails
