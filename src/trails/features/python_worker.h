// The long-lived Python process that runs users' Python CV code for both drivers: the campaign's
// system.project_file (extract_cvs on walker trajectories, docs/cvs.md, "The worker") and the
// swarm's PathGennie `projection:`/`convergence:` functions (docs/swarm.md, "From a PathGennie
// input.yaml"). It runs share/trails/project_file_worker.py, which imports each module once, at
// its first request, and answers one JSON request per line. A worker found dead at a call
// (killed, crashed, out of memory) is restarted once and the call retried; a second death is the
// error. Not thread-safe: its owner serializes the calls.
#pragma once

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "trails/core/python.h"
#include "trails/core/subprocess.h"

namespace trails::features {

class PythonWorker {
 public:
  // `label`: the configuration key the worker serves, first in its log lines and messages
  // (e.g. "system.project_file", "projection").
  PythonWorker(core::PythonInterpreter python, std::string label);

  // Sends `request` (project_file_worker.py's docstring lists the modes). nullopt when it
  // succeeded, and `reply` (when given) holds the worker's JSON reply; otherwise what went wrong,
  // in words (the module's problem with the traceback tail indented below it, or how the worker
  // died twice with its last stderr lines). Throws InputError when the interpreter cannot be
  // started.
  std::optional<std::string> call(const nlohmann::json& request, nlohmann::json* reply = nullptr);

  // The worker's process id (none before the first call or after a death), for logs.
  std::optional<int> pid() const;

 private:
  void start();

  core::PythonInterpreter python_;
  std::string label_;
  std::unique_ptr<core::ChildProcess> child_;
};

// share/trails/project_file_worker.py in the source tree; TRAILS_PROJECT_FILE_WORKER overrides.
std::filesystem::path python_worker_script();

}  // namespace trails::features
