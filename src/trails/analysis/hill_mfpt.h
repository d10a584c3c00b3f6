// Mean first-passage time from a weighted-ensemble run with recycling, by the Hill relation
// (docs/kinetics.md): in steady state the probability flux into the sink, per unit time, is the
// inverse MFPT. Trails-MD's steady_state_mfpt (compat:hill-mfpt): the flux series f_1..f_n holds
// the weight recycled in each iteration (one iteration = τ); the first floor(n·discard) values
// are the transient and are dropped; MFPT = τ / mean(tail).
#pragma once

#include <optional>
#include <span>

namespace trails::analysis {

struct HillMfpt {
  std::optional<double> mfpt;  // in the unit of tau; none without a positive tail flux
  double tau = 0.0;
  double discard_fraction = 0.5;
  int n_iterations = 0;
  int n_flux_events = 0;                // iterations with a positive flux (whole series)
  double tail_mean_flux = 0.0;          // per iteration
  std::optional<double> plateau_ratio;  // mean(second half of tail) / mean(first half)
  bool converged = false;               // plateau in [0.8, 1.25] and ≥ 10 flux events
};

HillMfpt steady_state_mfpt(std::span<const double> flux, double tau, double discard_fraction);

}  // namespace trails::analysis
