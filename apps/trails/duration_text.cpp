#include "duration_text.h"

#include <cmath>

#include <fmt/format.h>

namespace trails::app {

std::string duration_text(double s) {
  if (!(s >= 0.0)) return "?";
  s = std::round(s);
  if (s < 60) return fmt::format("{:.0f} s", s);
  if (s < 3600) return fmt::format("{:.0f} min {:02.0f} s", std::floor(s / 60), std::fmod(s, 60.0));
  return fmt::format("{:.0f} h {:02.0f} min", std::floor(s / 3600),
                     std::fmod(std::floor(s / 60), 60.0));
}

}  // namespace trails::app
