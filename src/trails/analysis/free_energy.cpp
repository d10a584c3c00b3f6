#include "trails/analysis/free_energy.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::analysis {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

std::vector<double> microstate_frame_weights(std::span<const double> points, int point_dim,
                                             std::span<const double> centres,
                                             std::span<const int> active_set,
                                             std::span<const double> pi) {
  if (point_dim < 1 || points.size() % static_cast<std::size_t>(point_dim) != 0 ||
      centres.size() % static_cast<std::size_t>(point_dim) != 0 || centres.empty()) {
    throw core::InputError(
        fmt::format("microstate weights: {} point values and {} centre values "
                    "do not fit dimension {}",
                    points.size(), centres.size(), point_dim));
  }
  if (active_set.size() != pi.size()) {
    throw core::InputError(
        fmt::format("microstate weights: {} active states but {} stationary "
                    "probabilities",
                    active_set.size(), pi.size()));
  }
  const std::size_t d = static_cast<std::size_t>(point_dim);
  const std::size_t n = points.size() / d;
  const std::size_t k = centres.size() / d;
  std::vector<double> state_pi(k, 0.0);
  for (std::size_t a = 0; a < active_set.size(); ++a) {
    const int s = active_set[a];
    if (s < 0 || static_cast<std::size_t>(s) >= k) {
      throw core::InputError(
          fmt::format("microstate weights: active state {} outside 0..{}", s, k - 1));
    }
    state_pi[static_cast<std::size_t>(s)] = pi[a];
  }
  std::vector<std::size_t> label(n);
  std::vector<std::size_t> count(k, 0);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t best = 0;
    double best_d2 = std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < k; ++c) {
      double d2 = 0.0;
      for (std::size_t j = 0; j < d; ++j) {
        const double diff = points[i * d + j] - centres[c * d + j];
        d2 += diff * diff;
      }
      if (d2 < best_d2) {  // strict: ties go to the lowest index
        best_d2 = d2;
        best = c;
      }
    }
    label[i] = best;
    ++count[best];
  }
  std::vector<double> w(n);
  for (std::size_t i = 0; i < n; ++i)
    w[i] = state_pi[label[i]] / static_cast<double>(count[label[i]]);
  return w;
}

FreeEnergySurface free_energy_surface(std::span<const double> points, int point_dim, int dims,
                                      std::span<const double> weights, int bins, double kT) {
  if (dims < 1 || dims > 2 || point_dim < dims || bins < 1 || !(kT > 0)) {
    throw core::InputError(fmt::format(
        "free energy surface: dims {} of a {}-D space, {} bins, kT {}", dims, point_dim, bins, kT));
  }
  const std::size_t d = static_cast<std::size_t>(point_dim);
  if (points.size() % d != 0 || points.empty()) {
    throw core::InputError(fmt::format(
        "free energy surface: {} values are not frames of dimension {}", points.size(), point_dim));
  }
  const std::size_t n = points.size() / d;
  if (!weights.empty() && weights.size() != n) {
    throw core::InputError(
        fmt::format("free energy surface: {} weights for {} frames", weights.size(), n));
  }
  FreeEnergySurface fes;
  fes.dims = dims;
  fes.bins = bins;
  for (int a = 0; a < dims; ++a) {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    for (std::size_t i = 0; i < n; ++i) {
      const double x = points[i * d + static_cast<std::size_t>(a)];
      if (!std::isfinite(x))
        throw core::InputError("free energy surface: a CV value is not finite");
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    if (lo == hi) {  // numpy's _get_outer_edges
      lo -= 0.5;
      hi += 0.5;
    }
    // numpy.linspace: k * step + start, the last edge exactly stop.
    const double step = (hi - lo) / bins;
    std::vector<double> e(static_cast<std::size_t>(bins) + 1);
    for (int k = 0; k < bins; ++k)
      e[static_cast<std::size_t>(k)] = static_cast<double>(k) * step + lo;
    e.back() = hi;
    fes.edges.push_back(std::move(e));
  }
  const std::size_t cells = static_cast<std::size_t>(dims == 1 ? bins : bins * bins);
  std::vector<double> hist(cells, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t cell = 0;
    for (int a = 0; a < dims; ++a) {
      const auto& e = fes.edges[static_cast<std::size_t>(a)];
      const double x = points[i * d + static_cast<std::size_t>(a)];
      auto b = static_cast<std::size_t>(std::upper_bound(e.begin(), e.end(), x) - e.begin()) - 1;
      if (x == e.back()) b = static_cast<std::size_t>(bins) - 1;
      cell = cell * static_cast<std::size_t>(bins) + b;
    }
    const double w = weights.empty() ? 1.0 : weights[i];
    hist[cell] += w;
    fes.total_weight += w;
  }
  if (!(fes.total_weight > 0))
    throw core::InputError("free energy surface: the frames carry no weight");
  // Density p = hist / (total × cell area); the constant cancels in the shift to a 0 minimum.
  double area = 1.0;
  for (const auto& e : fes.edges) area *= (e.back() - e.front()) / bins;
  fes.free_energy.assign(cells, kNaN);
  double fmin = std::numeric_limits<double>::infinity();
  for (std::size_t c = 0; c < cells; ++c) {
    if (hist[c] > 0) {
      fes.free_energy[c] = -kT * std::log(hist[c] / (fes.total_weight * area));
      fmin = std::min(fmin, fes.free_energy[c]);
    }
  }
  for (double& f : fes.free_energy) {
    if (std::isfinite(f)) f -= fmin;
  }
  return fes;
}

}  // namespace trails::analysis
