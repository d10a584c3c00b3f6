// Analytic potentials of the built-in engine (reduced units). Each knows its dimension, a
// default start point and a plotting box. biased_walk has no energy: it is Trails-MD's test walk
// x <- max(0, x - 0.30 + N(0,1)) and is stepped by the engine directly.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "trails/config/engine_spec.h"

namespace trails::engines::builtin {

class Potential {
 public:
  virtual ~Potential() = default;
  virtual std::string name() const = 0;
  virtual int dim() const = 0;
  virtual double energy(std::span<const double> x) const = 0;
  virtual void gradient(std::span<const double> x, std::span<double> grad) const = 0;
  virtual std::vector<double> default_start() const = 0;
  // Box for contour plots: {min_0, max_0, min_1, max_1, ...}.
  virtual std::vector<double> plot_box() const = 0;
  virtual bool has_energy() const { return true; }
};

std::unique_ptr<Potential> make_potential(const config::BuiltinEngineConfig& config);

}  // namespace trails::engines::builtin
