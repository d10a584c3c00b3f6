#include "trails/report/common/number_text.h"

#include <cmath>

#include <fmt/format.h>

namespace trails::report {

std::string round_trip_or_nan(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "NaN"; }

std::string digits17_or_nan(double v) {
  return std::isfinite(v) ? fmt::format("{:.17g}", v) : "nan";
}

}  // namespace trails::report
