#include "trails/analysis/series_tail.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::analysis {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
}  // namespace

SeriesTail series_tail(std::span<const double> values, double discard_fraction) {
  if (!(discard_fraction >= 0.0 && discard_fraction < 1.0)) {
    throw core::UsageError(
        fmt::format("--discard-fraction {} is outside [0, 1)", discard_fraction));
  }
  SeriesTail t;
  t.n_skip =
      static_cast<std::size_t>(std::floor(static_cast<double>(values.size()) * discard_fraction));
  t.n_tail = values.size() - t.n_skip;
  const auto mean = [](std::span<const double> v) {
    double s = 0.0;
    std::size_t m = 0;
    for (const double x : v) {
      if (std::isfinite(x)) {
        s += x;
        ++m;
      }
    }
    return m ? s / static_cast<double>(m) : kNaN;
  };
  const auto tail = values.subspan(t.n_skip);
  t.mean = mean(tail);
  t.plateau = kNaN;
  if (tail.size() >= 2) {
    const std::size_t h = tail.size() / 2;
    const double first = mean(tail.first(h));
    const double second = mean(tail.subspan(h));
    if (std::isfinite(first) && first != 0.0 && std::isfinite(second)) t.plateau = second / first;
  }
  return t;
}

}  // namespace trails::analysis
