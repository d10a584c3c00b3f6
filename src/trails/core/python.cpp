#include "trails/core/python.h"

#include <cstdlib>

// The build's default (CMakeLists.txt): the Python of the OpenMM Trails links, so a system
// serialized by that OpenMM is prepared by the same version (docs/engines.md).
#ifndef TRAILS_DEFAULT_PYTHON
#define TRAILS_DEFAULT_PYTHON "/usr/bin/python3"
#endif

namespace trails::core {

std::string PythonInterpreter::describe() const {
  if (!keep_pythonpath) return program + " (" + source + "; PYTHONPATH and PYTHONHOME cleared)";
  return program + " (" + source + ")";
}

void PythonInterpreter::apply(ProcessOptions& options) const {
  if (keep_pythonpath) return;
  options.unset_env.emplace_back("PYTHONPATH");
  options.unset_env.emplace_back("PYTHONHOME");
}

PythonInterpreter resolve_python(const std::optional<std::string>& configured) {
  if (configured && !configured->empty()) return {*configured, "engine.python", true};
  if (const char* env = std::getenv("TRAILS_PYTHON"); env != nullptr && *env != '\0') {
    return {env, "TRAILS_PYTHON", true};
  }
  return {TRAILS_DEFAULT_PYTHON, "default", false};
}

}  // namespace trails::core
