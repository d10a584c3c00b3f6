#include "trails/engines/external/segment_program.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/subprocess.h"

namespace trails::engines::external {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kLogBytes = 1u << 20;  // the log keeps the last MiB of each stream
constexpr std::size_t kTailLines = 20;

std::string log_text(const core::ProcessResult& r) {
  std::string log = "--- stdout ---\n" + r.stdout_text;
  if (!log.empty() && log.back() != '\n') log += '\n';
  log += "--- stderr ---\n" + r.stderr_tail;
  return log;
}

}  // namespace

std::string tail_lines(const std::string& text, std::size_t max_lines) {
  std::size_t end = text.size();
  while (end > 0 && text[end - 1] == '\n') --end;
  std::size_t begin = end;
  for (std::size_t lines = 0; begin > 0 && lines < max_lines;) {
    --begin;
    if (text[begin] == '\n' && ++lines == max_lines) {
      ++begin;
      break;
    }
  }
  return core::indent_lines(text.substr(begin, end - begin));
}

ProgramOutcome run_segment_program(const SegmentProgram& program, const fs::path& work_dir) {
  core::ProcessOptions options;
  options.set_env = program.env;
  options.working_directory = work_dir;
  options.timeout = program.timeout;
  options.stdout_limit = kLogBytes;
  options.stderr_tail_bytes = kLogBytes;
  // A stop signal ends the program at once (its walker is run again on --resume), and nothing
  // it started outlives it (docs/reliability.md, "Signals, child processes and concurrent runs").
  options.interruptible = true;
  options.end_descendants = true;
  ProgramOutcome outcome;
  const auto started = std::chrono::steady_clock::now();
  core::ProcessResult result;
  try {
    result = core::run_process(program.argv, options);
  } catch (const core::Error& e) {  // could not start: still a walker failure, not a crash
    outcome.error = e.what();
    return outcome;
  }
  outcome.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::ofstream(work_dir / "walker.log") << log_text(result);
  if (result.status.ok()) {
    outcome.ok = true;
    return outcome;
  }
  const std::string& tail_source =
      result.stderr_tail.empty() ? result.stdout_text : result.stderr_tail;
  outcome.error = fmt::format("'{}' {}; the last lines of its {}:\n{}", program.argv.front(),
                              result.status.describe(program.timeout),
                              result.stderr_tail.empty() ? "output" : "stderr",
                              tail_lines(tail_source, kTailLines));
  return outcome;
}

std::optional<std::chrono::milliseconds> time_limit(const std::optional<double>& seconds) {
  if (!seconds) return std::nullopt;
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::ceil(*seconds * 1e3)));
}

std::string read_log(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string file_tail(const fs::path& path, std::size_t max_lines) {
  return tail_lines(read_log(path), max_lines);
}

fs::path find_program(const std::string& name, const std::string& key) {
  const auto executable = [](const fs::path& p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
  };
  if (name.find('/') != std::string::npos) {
    if (executable(name)) return name;
    throw core::ConfigError(fmt::format(
        "{}: {} is not an executable file; give the program's path or a name found in PATH", key,
        name));
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (executable(candidate)) return candidate;
  }
  throw core::ConfigError(
      fmt::format("{}: '{}' was not found in PATH; install it or give its full path", key, name));
}

}  // namespace trails::engines::external
