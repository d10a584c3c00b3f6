// The long-lived Python process behind system.project_file: one per campaign (per
// projection), running share/trails/project_file_worker.py, which imports the user's module at
// its first request and answers one JSON request per line (docs/cvs.md, "The worker"). A worker
// found dead at a call (killed, crashed, out of memory) is restarted once and the call retried;
// a second death is the error. Not thread-safe: the projection serializes its calls.
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "trails/core/python.h"
#include "trails/core/subprocess.h"

namespace trails::campaign {

class ProjectFileWorker {
 public:
  explicit ProjectFileWorker(core::PythonInterpreter python);

  // Sends `request` (run_project_file.py's request, mode "run"). nullopt when the module's
  // extract_cvs ran and its result was written; otherwise what went wrong, in words (the
  // module's problem with the traceback tail indented below it, or how the worker died twice
  // with its last stderr lines). Throws InputError when the interpreter cannot be started.
  std::optional<std::string> call(const nlohmann::json& request);

  // The worker's process id (none before the first call or after a death), for logs.
  std::optional<int> pid() const;

 private:
  void start();

  core::PythonInterpreter python_;
  std::unique_ptr<core::ChildProcess> child_;
};

// share/trails/project_file_worker.py in the source tree; TRAILS_PROJECT_FILE_WORKER overrides.
std::filesystem::path project_file_worker_script();

}  // namespace trails::campaign
