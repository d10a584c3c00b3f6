#include "trails/core/crash_point.h"

#include <csignal>
#include <cstdlib>
#include <string>

namespace trails::core {

void crash_point(std::string_view name, std::int64_t iteration) {
  static const char* spec = std::getenv("TRAILS_CRASH_AT");
  if (spec == nullptr || *spec == '\0') return;
  std::string_view s(spec);
  std::string_view want_name = s.substr(0, s.find(':'));
  if (want_name != name) return;
  if (auto colon = s.find(':'); colon != std::string_view::npos) {
    if (std::string(s.substr(colon + 1)) != std::to_string(iteration)) return;
  }
  std::raise(SIGKILL);
}

}  // namespace trails::core
