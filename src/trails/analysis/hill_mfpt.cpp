#include "trails/analysis/hill_mfpt.h"

#include <cmath>
#include <numeric>

namespace trails::analysis {
namespace {

double mean(std::span<const double> v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

}  // namespace

HillMfpt steady_state_mfpt(std::span<const double> flux, double tau, double discard_fraction) {
  HillMfpt r;
  r.tau = tau;
  r.discard_fraction = discard_fraction;
  r.n_iterations = static_cast<int>(flux.size());
  for (const double f : flux) r.n_flux_events += f > 0.0 ? 1 : 0;
  const auto skip =
      static_cast<std::size_t>(std::floor(static_cast<double>(flux.size()) * discard_fraction));
  if (skip >= flux.size()) return r;
  const auto tail = flux.subspan(skip);
  r.tail_mean_flux = mean(tail);
  if (r.tail_mean_flux > 0.0) r.mfpt = tau / r.tail_mean_flux;
  if (tail.size() >= 2) {
    const std::size_t h = tail.size() / 2;
    const double first = mean(tail.first(h));
    if (first != 0.0) r.plateau_ratio = mean(tail.subspan(h)) / first;
  }
  r.converged = r.plateau_ratio && *r.plateau_ratio >= 0.8 && *r.plateau_ratio <= 1.25 &&
                r.n_flux_events >= 10;
  return r;
}

}  // namespace trails::analysis
