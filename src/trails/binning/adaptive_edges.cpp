// Adaptive bin edges (compat:adaptive-binning). The arithmetic follows docs/spawning.md
// "Adaptive binning" step by step, in a fixed order, so the edges are the same bytes on every run.
#include "trails/binning/adaptive_edges.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "trails/core/error.h"

namespace trails::binning {
namespace {

struct Range {
  double a = 0.0, b = 0.0;
};

// Occupied range of the values clipped into [lo, hi]; a > b when there are none.
Range occupied_range(std::span<const double> values, double lo, double hi) {
  Range r{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()};
  for (double x : values) {
    const double c = std::clamp(x, lo, hi);
    r.a = std::min(r.a, c);
    r.b = std::max(r.b, c);
  }
  return r;
}

// Counts of the clipped values in n equal slices of [a, b] (the right end in the last slice).
std::vector<double> histogram(std::span<const double> values, double a, double b, int n) {
  std::vector<double> h(static_cast<std::size_t>(n), 0.0);
  const double scale = n / (b - a);
  for (double x : values) {
    const double c = std::clamp(x, a, b);
    const auto i = std::min(static_cast<std::int64_t>((c - a) * scale), std::int64_t{n - 1});
    h[static_cast<std::size_t>(i)] += 1.0;
  }
  return h;
}

// Cuts clipped into [lo, hi], with lo and hi, sorted, duplicates removed.
std::vector<double> finish_edges(std::vector<double> cuts, double lo, double hi) {
  for (double& c : cuts) c = std::clamp(c, lo, hi);
  cuts.push_back(lo);
  cuts.push_back(hi);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

// numpy.convolve(h, ones(w) / w, mode="same"): out[i] = sum_k h[i + (w-1)/2 - k] / w.
std::vector<double> moving_average(const std::vector<double>& h, int w) {
  const auto n = static_cast<std::int64_t>(h.size());
  std::vector<double> out(h.size(), 0.0);
  const std::int64_t shift = (w - 1) / 2;
  for (std::int64_t i = 0; i < n; ++i) {
    double s = 0.0;
    for (std::int64_t k = 0; k < w; ++k) {
      const std::int64_t j = i + shift - k;
      if (j >= 0 && j < n) s += h[static_cast<std::size_t>(j)];
    }
    out[static_cast<std::size_t>(i)] = s / w;
  }
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 == 1 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace

std::vector<double> uniform_edges(double lo, double hi, int nb) {
  TRAILS_CHECK(nb >= 1 && lo < hi, "uniform_edges needs nb >= 1 and lo < hi");
  std::vector<double> e(static_cast<std::size_t>(nb) + 1);
  for (int i = 0; i <= nb; ++i) e[static_cast<std::size_t>(i)] = lo + (hi - lo) * i / nb;
  e.back() = hi;
  return e;
}

std::vector<double> gradient_edges(std::span<const double> values, double lo, double hi, int nb,
                                   int n_fine, int smoothing) {
  const Range r = occupied_range(values, lo, hi);
  if (nb < 3 || !(r.b > r.a)) return uniform_edges(lo, hi, nb);
  const int nf = std::max(n_fine, 4 * nb);
  std::vector<double> density = histogram(values, r.a, r.b, nf);
  if (smoothing > 1 && nf >= smoothing) density = moving_average(density, smoothing);
  std::vector<double> resistance(density.size());
  for (std::size_t i = 0; i < density.size(); ++i) {
    resistance[i] = 1.0 / std::max(density[i], 1e-9);
  }
  const double cap = 50.0 * median(resistance);
  for (double& x : resistance) x = std::min(x, cap);
  // Integrated resistance at the slice edges a + i dx (strictly increasing: every r > 0).
  const double dx = (r.b - r.a) / nf;
  std::vector<double> integral(static_cast<std::size_t>(nf) + 1, 0.0);
  for (std::size_t i = 0; i < resistance.size(); ++i) {
    integral[i + 1] = integral[i] + resistance[i] * dx;
  }
  const double total = integral.back();
  std::vector<double> cuts;
  const int n_cuts = nb - 1;  // linspace(0, total, nb - 1): a and b included
  for (int j = 0; j < n_cuts; ++j) {
    const double t = j == n_cuts - 1 ? total : total * j / (n_cuts - 1);
    // Inverse of the piecewise-linear integral (numpy.interp).
    const auto hi_it = std::upper_bound(integral.begin(), integral.end(), t);
    if (hi_it == integral.end()) {
      cuts.push_back(r.b);
      continue;
    }
    const auto i = static_cast<std::size_t>(hi_it - integral.begin());
    if (i == 0) {
      cuts.push_back(r.a);
      continue;
    }
    const double f = (t - integral[i - 1]) / (integral[i] - integral[i - 1]);
    cuts.push_back(r.a + (static_cast<double>(i - 1) + f) * dx);
  }
  return finish_edges(std::move(cuts), lo, hi);
}

std::vector<double> mab_bottlenecks(std::span<const double> values, double lo, double hi,
                                    int n_fine) {
  if (values.empty() || n_fine < 1) return {};
  const std::vector<double> h = histogram(values, lo, hi, n_fine);
  std::vector<std::size_t> occupied;
  for (std::size_t i = 0; i < h.size(); ++i) {
    if (h[i] > 0) occupied.push_back(i);
  }
  if (occupied.size() < 3) return {};
  const double width = (hi - lo) / n_fine;
  std::vector<double> found;
  for (const bool forward : {true, false}) {
    // Slices in the direction of travel; `ahead` = frames strictly beyond the slice.
    std::vector<std::size_t> order = occupied;
    if (!forward) std::reverse(order.begin(), order.end());
    double ahead = 0.0;
    for (std::size_t k = 1; k < order.size(); ++k) ahead += h[order[k]];
    double best_z = -std::numeric_limits<double>::infinity();
    std::size_t best = order.front();
    for (std::size_t k = 0; k + 1 < order.size(); ++k) {  // the last occupied one is no candidate
      const double z = std::log(h[order[k]]) - std::log(ahead);
      if (z > best_z) {
        best_z = z;
        best = order[k];
      }
      ahead -= h[order[k + 1]];
    }
    found.push_back(lo + (static_cast<double>(best) + 0.5) * width);
  }
  return found;
}

std::vector<double> mab_edges(std::span<const double> values, double lo, double hi, int nb,
                              int n_fine) {
  const Range r = occupied_range(values, lo, hi);
  if (nb < 6 || !(r.b > r.a)) return uniform_edges(lo, hi, nb);
  const double eps = std::max(0.02 * (r.b - r.a), 1e-4 * (hi - lo));
  std::vector<double> specials = {r.a, r.b};
  for (double s : mab_bottlenecks(values, lo, hi, n_fine)) specials.push_back(s);
  std::sort(specials.begin(), specials.end());
  specials.erase(std::unique(specials.begin(), specials.end()), specials.end());
  const int n_even = std::max(nb - 2 * static_cast<int>(specials.size()), 2);
  std::vector<double> cuts;
  for (double s : specials) {
    cuts.push_back(s - eps);
    cuts.push_back(s + eps);
  }
  for (int i = 0; i <= n_even; ++i) {
    cuts.push_back(i == n_even ? r.b : r.a + (r.b - r.a) * i / n_even);
  }
  return finish_edges(std::move(cuts), lo, hi);
}

}  // namespace trails::binning
