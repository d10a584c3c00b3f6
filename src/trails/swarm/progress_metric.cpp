#include "trails/swarm/progress_metric.h"

#include <cmath>
#include <limits>

#include "trails/core/error.h"

namespace trails::swarm {

double periodic_difference(double a, double b, double period) {
  const double d = a - b;
  if (period <= 0.0) return d;
  return d - period * std::floor(d / period + 0.5);
}

ProgressMetric::ProgressMetric(config::SwarmMode mode, config::EscapeMetric escape,
                               std::vector<double> reference, std::vector<double> periods,
                               std::vector<double> weights)
    : mode_(mode),
      escape_(escape),
      reference_(std::move(reference)),
      periods_(std::move(periods)),
      weights_(std::move(weights)) {
  TRAILS_CHECK(periods_.size() == reference_.size(),
               "one period per CV component (0 when not periodic)");
  if (weights_.empty()) weights_.assign(reference_.size(), 1.0);
  TRAILS_CHECK(weights_.size() == reference_.size(), "one weight per CV component");
}

// Σ f(w_i d_i) over the finite components, d_i the minimum-image difference from the
// reference; NaN when no component is finite (PathGennie masks NaN components).
template <class F>
double ProgressMetric::sum_weighted_differences(std::span<const double> xi, F f) const {
  TRAILS_CHECK(xi.size() == reference_.size(), "CV point and reference differ in dimension");
  double sum = 0.0;
  bool any = false;
  for (std::size_t i = 0; i < xi.size(); ++i) {
    if (!std::isfinite(xi[i]) || !std::isfinite(reference_[i])) continue;
    sum += f(weights_[i] * periodic_difference(xi[i], reference_[i], periods_[i]));
    any = true;
  }
  return any ? sum : std::numeric_limits<double>::quiet_NaN();
}

double ProgressMetric::distance(std::span<const double> xi) const {
  return std::sqrt(sum_weighted_differences(xi, [](double d) { return d * d; }));
}

double ProgressMetric::weighted_displacement(std::span<const double> xi) const {
  return sum_weighted_differences(xi, [](double d) { return d; });
}

double ProgressMetric::operator()(std::span<const double> xi) const {
  if (mode_ == config::SwarmMode::Target) return -distance(xi);
  if (escape_ == config::EscapeMetric::Cv0) {
    TRAILS_CHECK(!xi.empty(), "cv0 progress of an empty CV point");
    return std::isfinite(xi[0]) ? xi[0] : std::numeric_limits<double>::quiet_NaN();
  }
  return distance(xi);
}

}  // namespace trails::swarm
