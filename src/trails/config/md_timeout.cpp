// TRAILS_MD_TIMEOUT (docs/engines.md, "Subprocess time limit").
#include <cmath>
#include <cstdlib>
#include <string>

#include "trails/config/engine_spec.h"
#include "trails/core/error.h"

namespace trails::config {

std::optional<double> md_timeout_from_environment() {
  const char* text = std::getenv("TRAILS_MD_TIMEOUT");
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  while (end != nullptr && *end == ' ') ++end;
  if (end == text || *end != '\0' || !std::isfinite(seconds) || seconds < 0.0) {
    // Trails-MD ignores such a value silently and runs without a limit; a limit the user meant
    // to set and did not get is the worse surprise, so Trails refuses it.
    throw core::ConfigError(std::string("TRAILS_MD_TIMEOUT=") + text +
                            ": expected a number of seconds (> 0: the limit on each grompp, "
                            "mdrun, pmemd/sander or command-engine program; 0: no limit); set it "
                            "so or unset it");
  }
  if (seconds == 0.0) return std::nullopt;  // Trails-MD's "0 → no timeout"
  return seconds;
}

}  // namespace trails::config
