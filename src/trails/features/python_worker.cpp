#include "trails/features/python_worker.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

#include "trails/core/error.h"
#include "trails/core/source_tree.h"

namespace trails::features {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// The worker's reply in words: nullopt for {"ok": true} (then stored in `out`).
std::optional<std::string> problem_of(const std::string& line, json* out) {
  json reply;
  try {
    reply = json::parse(line);
  } catch (const json::exception&) {
    return fmt::format("{} answered with something that is not its JSON reply: {:.200}",
                       python_worker_script().string(), line);
  }
  if (reply.value("ok", false)) {
    if (out != nullptr) *out = std::move(reply);
    return std::nullopt;
  }
  if (reply.contains("internal")) {
    return fmt::format("{} failed:\n{}", python_worker_script().string(),
                       core::indent_lines(reply["internal"].get<std::string>()));
  }
  std::string text = reply.value("message", std::string("(no message)"));
  const std::string tb = reply.value("traceback", std::string());
  if (!tb.empty()) text += "\n  Python traceback (last lines):\n" + core::indent_lines(tb);
  return text;
}

// ", its last output:\n    ..." when the dead worker printed anything to stderr.
std::string last_output_of(const core::ChildProcess& child) {
  const std::string tail = child.stderr_tail();
  if (tail.find_first_not_of(" \n") == std::string::npos) return "";
  return "; its last output:\n" + core::indent_lines(tail);
}

}  // namespace

fs::path python_worker_script() {
  if (const char* s = std::getenv("TRAILS_PROJECT_FILE_WORKER"); s != nullptr && *s != '\0') {
    return s;
  }
  return core::source_dir() / "share" / "trails" / "project_file_worker.py";
}

PythonWorker::PythonWorker(core::PythonInterpreter python, std::string label)
    : python_(std::move(python)), label_(std::move(label)) {}

std::optional<int> PythonWorker::pid() const {
  if (!child_) return std::nullopt;
  return static_cast<int>(child_->pid());
}

void PythonWorker::start() {
  core::ProcessOptions options;
  options.stderr_tail_bytes = 4000;
  python_.apply(options);
  try {
    child_ = std::make_unique<core::ChildProcess>(
        std::vector<std::string>{python_.program, python_worker_script().string()}, options);
  } catch (const core::InputError& e) {
    throw core::InputError(
        fmt::format("{}: {} (the Python interpreter is {}; set engine.python or TRAILS_PYTHON)",
                    label_, e.what(), python_.describe()));
  }
  spdlog::debug("{}: worker {} started ({} {})", label_, child_->pid(), python_.describe(),
                python_worker_script().string());
}

std::optional<std::string> PythonWorker::call(const json& request, json* reply_out) {
  // A death — found at the call (killed while idle) or during it — is restarted once and the
  // call retried; the second death is the error.
  int deaths = 0;
  std::string first_death, last_death, last_output;
  const auto note_death = [&] {
    last_death = child_->status().describe();
    last_output = last_output_of(*child_);
    if (deaths++ == 0) first_death = last_death;
    child_.reset();
  };
  while (true) {
    if (child_ && !child_->running()) note_death();
    if (deaths >= 2) break;
    if (!child_) {
      if (deaths > 0) {
        spdlog::warn("{}: the Python worker died: {}; restarting it", label_, first_death);
      }
      start();
    }
    const std::optional<std::string> reply = child_->request(request.dump());
    if (const std::string printed = child_->take_new_stderr(); !printed.empty()) {
      spdlog::debug("{} output:\n{}", label_, printed);
    }
    if (reply) return problem_of(*reply, reply_out);
    note_death();
    if (deaths >= 2) break;
  }
  return fmt::format(
      "{}: the Python worker ({} {}) died: {}; restarted and retried, it died again: {}{}",
      request.value("module", std::string()), python_.describe(), python_worker_script().string(),
      first_death, last_death, last_output);
}

}  // namespace trails::features
