#include "trails/report/gnuplot.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <fstream>

#include "trails/core/error.h"
#include "trails/core/subprocess.h"

namespace trails::report {

void run_gnuplot(const std::string& script, std::string_view purpose,
                 const std::filesystem::path* log) {
  const std::vector<std::string> argv = {"gnuplot"};
  core::ProcessOptions options;
  options.stdin_data = script;
  options.timeout = std::chrono::minutes(5);
  options.stderr_tail_bytes = 16 << 10;
  core::ProcessResult result;
  try {
    result = core::run_process(argv, options);
  } catch (const core::InputError& e) {
    throw core::InputError(
        fmt::format("{}; install gnuplot-nox (make deps) to draw {}", e.what(), purpose));
  }
  const std::string printed = result.stdout_text + result.stderr_tail;
  if (log != nullptr) {
    std::ofstream out(*log);
    out << printed;
  }
  if (!result.status.ok()) {
    throw core::InputError(fmt::format("gnuplot failed drawing {}: {}", purpose,
                                       core::describe_failure(argv, result, options.timeout)));
  }
  if (!printed.empty()) spdlog::debug("gnuplot ({}) printed:\n{}", purpose, printed);
}

}  // namespace trails::report
