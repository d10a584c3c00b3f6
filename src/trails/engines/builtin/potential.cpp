// The analytic potentials of the built-in engine and their registry (make_potential). Each
// gradient is analytic (tests compare it with finite differences); energy/gradient never
// allocate, because the integrator calls them once per step. Reduced units throughout.
#include "trails/engines/builtin/potential.h"

#include <array>
#include <cmath>

#include "trails/core/error.h"

namespace trails::engines::builtin {
namespace {

// V(x) = (x^2 - 1)^2: minima at +-1, barrier 1 at 0.
class DoubleWell final : public Potential {
 public:
  std::string name() const override { return "double_well"; }
  int dim() const override { return 1; }
  double energy(std::span<const double> x) const override {
    const double s = x[0] * x[0] - 1.0;
    return s * s;
  }
  void gradient(std::span<const double> x, std::span<double> grad) const override {
    grad[0] = 4.0 * x[0] * (x[0] * x[0] - 1.0);
  }
  std::vector<double> default_start() const override { return {-1.0}; }
  std::vector<double> plot_box() const override { return {-2.0, 2.0}; }
};

// The standard Müller–Brown surface: four anisotropic Gaussians.
class MullerBrown final : public Potential {
 public:
  std::string name() const override { return "muller_brown"; }
  int dim() const override { return 2; }
  double energy(std::span<const double> x) const override {
    double v = 0.0;
    for (std::size_t k = 0; k < 4; ++k) {
      const double dx = x[0] - kX0[k];
      const double dy = x[1] - kY0[k];
      v += kA[k] * std::exp(ka[k] * dx * dx + kb[k] * dx * dy + kc[k] * dy * dy);
    }
    return v;
  }
  void gradient(std::span<const double> x, std::span<double> grad) const override {
    double gx = 0.0;
    double gy = 0.0;
    for (std::size_t k = 0; k < 4; ++k) {
      const double dx = x[0] - kX0[k];
      const double dy = x[1] - kY0[k];
      const double e = kA[k] * std::exp(ka[k] * dx * dx + kb[k] * dx * dy + kc[k] * dy * dy);
      gx += e * (2.0 * ka[k] * dx + kb[k] * dy);
      gy += e * (kb[k] * dx + 2.0 * kc[k] * dy);
    }
    grad[0] = gx;
    grad[1] = gy;
  }
  std::vector<double> default_start() const override { return {-0.558, 1.442}; }
  std::vector<double> plot_box() const override { return {-1.5, 1.2, -0.5, 2.0}; }

 private:
  static constexpr std::array<double, 4> kA{-200.0, -100.0, -170.0, 15.0};
  static constexpr std::array<double, 4> ka{-1.0, -1.0, -6.5, 0.7};
  static constexpr std::array<double, 4> kb{0.0, 0.0, 11.0, 0.6};
  static constexpr std::array<double, 4> kc{-10.0, -10.0, -6.5, 0.7};
  static constexpr std::array<double, 4> kX0{1.0, 0.0, -0.5, -1.0};
  static constexpr std::array<double, 4> kY0{0.0, 0.5, 1.5, 1.0};
};

// The three-well surface (two deep wells at y ~ 0, a shallow one near y ~ 5/3, confined by
// quartic walls) common in path-sampling papers.
class ThreeWell final : public Potential {
 public:
  std::string name() const override { return "three_well"; }
  int dim() const override { return 2; }
  double energy(std::span<const double> x) const override {
    double v = 0.0;
    for (const Gaussian& g : kTerms) v += g.weight * g.value(x[0], x[1]);
    const double yq = x[1] - 1.0 / 3.0;
    return v + 0.2 * x[0] * x[0] * x[0] * x[0] + 0.2 * yq * yq * yq * yq;
  }
  void gradient(std::span<const double> x, std::span<double> grad) const override {
    const double yq = x[1] - 1.0 / 3.0;
    double gx = 0.8 * x[0] * x[0] * x[0];
    double gy = 0.8 * yq * yq * yq;
    for (const Gaussian& g : kTerms) {
      const double e = g.weight * g.value(x[0], x[1]);
      gx -= 2.0 * (x[0] - g.x0) * e;
      gy -= 2.0 * (x[1] - g.y0) * e;
    }
    grad[0] = gx;
    grad[1] = gy;
  }
  std::vector<double> default_start() const override { return {-1.0, 0.0}; }
  std::vector<double> plot_box() const override { return {-2.0, 2.0, -1.5, 2.5}; }

 private:
  struct Gaussian {
    double weight, x0, y0;
    double value(double x, double y) const {
      return std::exp(-(x - x0) * (x - x0) - (y - y0) * (y - y0));
    }
  };
  static constexpr std::array<Gaussian, 4> kTerms{
      {{3.0, 0.0, 1.0 / 3.0}, {-3.0, 0.0, 5.0 / 3.0}, {-5.0, 1.0, 0.0}, {-5.0, -1.0, 0.0}}};
};

// V(x) = |x|^2 / 2 in n dimensions: the exact oracle for per-axis variance kT.
class Harmonic final : public Potential {
 public:
  explicit Harmonic(int dimension) : dim_(dimension) {}
  std::string name() const override { return "harmonic"; }
  int dim() const override { return dim_; }
  double energy(std::span<const double> x) const override {
    double v = 0.0;
    for (double xi : x) v += xi * xi;
    return 0.5 * v;
  }
  void gradient(std::span<const double> x, std::span<double> grad) const override {
    for (std::size_t i = 0; i < x.size(); ++i) grad[i] = x[i];
  }
  std::vector<double> default_start() const override {
    return std::vector<double>(static_cast<std::size_t>(dim_), 0.0);
  }
  std::vector<double> plot_box() const override {
    std::vector<double> box;
    for (int i = 0; i < dim_; ++i) {
      box.push_back(-3.0);
      box.push_back(3.0);
    }
    return box;
  }

 private:
  int dim_;
};

// Trails-MD's 1-D biased walk, stepped by the engine itself (no energy, no integrator): the
// zero energy/gradient keep the interface total, but nothing should integrate them.
class BiasedWalk final : public Potential {
 public:
  std::string name() const override { return "biased_walk"; }
  int dim() const override { return 1; }
  double energy(std::span<const double>) const override { return 0.0; }
  void gradient(std::span<const double>, std::span<double> grad) const override { grad[0] = 0.0; }
  std::vector<double> default_start() const override { return {0.0}; }
  std::vector<double> plot_box() const override { return {0.0, 20.0}; }
  bool has_energy() const override { return false; }
};

}  // namespace

std::unique_ptr<Potential> make_potential(const config::BuiltinEngineConfig& config) {
  switch (config.potential) {
    case config::Potential::DoubleWell:
      return std::make_unique<DoubleWell>();
    case config::Potential::MullerBrown:
      return std::make_unique<MullerBrown>();
    case config::Potential::ThreeWell:
      return std::make_unique<ThreeWell>();
    case config::Potential::Harmonic:
      if (config.dimension < 1) {
        throw core::ConfigError("engine.dimension must be >= 1 for the harmonic potential (got " +
                                std::to_string(config.dimension) + ")");
      }
      return std::make_unique<Harmonic>(config.dimension);
    case config::Potential::BiasedWalk:
      return std::make_unique<BiasedWalk>();
  }
  throw core::InternalError("make_potential: unknown potential enumerator");
}

}  // namespace trails::engines::builtin
