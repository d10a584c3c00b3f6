#include "trails/swarm/selection.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "trails/core/error.h"

namespace trails::swarm {

std::vector<double> normalised_progress(std::span<const double> metric) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (double m : metric) {
    if (!std::isfinite(m)) continue;
    lo = std::min(lo, m);
    hi = std::max(hi, m);
  }
  std::vector<double> out(metric.size(), std::numeric_limits<double>::quiet_NaN());
  const bool flat = !(hi - lo >= kFlatSpread);
  for (std::size_t i = 0; i < metric.size(); ++i) {
    if (std::isfinite(metric[i])) out[i] = flat ? 0.5 : (metric[i] - lo) / (hi - lo);
  }
  return out;
}

std::vector<double> selection_probabilities(std::span<const double> metric, double sigma) {
  TRAILS_CHECK(sigma > 0.0, "selection temperature sigma must be > 0");
  const std::vector<double> s = normalised_progress(metric);
  std::vector<double> p(s.size(), 0.0);
  double sum = 0.0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (std::isnan(s[i])) continue;
    p[i] = std::exp((s[i] - 1.0) / sigma);  // ≤ 1, and the best trial's weight is exactly 1
    sum += p[i];
  }
  if (sum == 0.0) return {};
  for (double& x : p) x /= sum;
  return p;
}

std::size_t draw_index(std::span<const double> p, double u) {
  double total = 0.0;
  for (double x : p) total += x;
  TRAILS_CHECK(total > 0.0, "draw_index needs a positive probability");
  const double target = u * total;
  double cumulative = 0.0;
  std::size_t last = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] <= 0.0) continue;
    cumulative += p[i];
    last = i;
    if (target < cumulative) return i;
  }
  return last;  // rounding left u·Σp at the very top: the last possible trial
}

double entropy(std::span<const double> p) {
  double h = 0.0;
  for (double x : p) {
    if (x > 0.0) h -= x * std::log(x);
  }
  return h;
}

}  // namespace trails::swarm
