// Which Python interpreter Trails runs (system preparation, system.project_file), and with what
// environment. Precedence: the config key engine.python, then $TRAILS_PYTHON, then the build's
// default: /usr/bin/python3 (Debian's python3-openmm) for an OpenMM 7.7 build, the Python of the
// OpenMM prefix for an -DOpenMM_ROOT build (CMake's TRAILS_DEFAULT_PYTHON). The default runs
// with PYTHONPATH and PYTHONHOME removed, so its own OpenMM wins over whatever a user's
// environment points at; an interpreter the user chose keeps their PYTHONPATH (a cluster module
// or conda environment). docs/configuration.md.
#pragma once

#include <optional>
#include <string>

#include "trails/core/subprocess.h"

namespace trails::core {

struct PythonInterpreter {
  std::string program;  // a path, or a name looked up in PATH
  std::string source;   // "default", "TRAILS_PYTHON" or "engine.python"
  bool keep_pythonpath = false;

  // "/usr/bin/python3 (default; PYTHONPATH and PYTHONHOME cleared)", "python3.11 (TRAILS_PYTHON)"
  std::string describe() const;
  // Adds the environment edits this interpreter runs with.
  void apply(ProcessOptions& options) const;
};

// `configured` is engine.python (nullopt or empty: not set).
PythonInterpreter resolve_python(const std::optional<std::string>& configured);

}  // namespace trails::core
