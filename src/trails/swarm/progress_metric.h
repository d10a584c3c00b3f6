// How far a point of CV space has progressed (docs/swarm.md, "Progress"); higher is better.
//   escape, distance_from_start: ‖ξ − ξ₀‖      escape, cv0: ξ₁      target: −‖ξ − ξ*‖
// Differences of periodic components (raw angles) are taken as minimum images; non-finite
// components are left out of the distance (PathGennie masks NaN components). Pure numerics.
#pragma once

#include <span>
#include <vector>

#include "trails/config/swarm_config.h"

namespace trails::swarm {

class ProgressMetric {
 public:
  // `reference`: ξ₀ (escape) or ξ* (target); `periods`: one per component, 0 = not periodic;
  // `weights`: one per component, scaling it in the distance (empty: all 1; unfold mode).
  ProgressMetric(config::SwarmMode mode, config::EscapeMetric escape, std::vector<double> reference,
                 std::vector<double> periods, std::vector<double> weights = {});

  // The progress of ξ (NaN when ξ has no finite component to measure).
  double operator()(std::span<const double> xi) const;
  // ‖w ⊙ (ξ − reference)‖ with minimum images over the finite components.
  double distance(std::span<const double> xi) const;
  // Σ w_i (ξ_i − reference_i) over the finite components, minimum images: the unfold mode's
  // first-phase score (NaN when no component is finite).
  double weighted_displacement(std::span<const double> xi) const;

  const std::vector<double>& reference() const { return reference_; }

 private:
  template <class F>
  double sum_weighted_differences(std::span<const double> xi, F f) const;

  config::SwarmMode mode_;
  config::EscapeMetric escape_;
  std::vector<double> reference_;
  std::vector<double> periods_;
  std::vector<double> weights_;
};

// a − b for a component of period `period` (0: plain difference), folded into [−period/2,
// period/2).
double periodic_difference(double a, double b, double period);

}  // namespace trails::swarm
