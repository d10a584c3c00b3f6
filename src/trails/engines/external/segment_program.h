// Running the program of one segment (the command engine's script, pmemd/sander, mdrun) in its
// walker directory: no shell, environment additions, an optional time limit, and the program's
// stdout and stderr saved as `walker.log` in that directory. A program that cannot be started,
// exits non-zero, is killed or times out is a failed walker whose error quotes the log's tail
// (docs/engines.md, "Walker files and scratch"); the caller adds where the whole log is.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace trails::engines::external {

struct ProgramOutcome {
  bool ok = false;
  std::string error;  // when !ok: how it ended and the last lines of its log
  double seconds = 0.0;
};

struct SegmentProgram {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;
  std::optional<std::chrono::milliseconds> timeout;
};

// A limit in seconds (engine.command_timeout, $TRAILS_MD_TIMEOUT) as run_process takes it, rounded
// up to whole milliseconds; none: no limit.
std::optional<std::chrono::milliseconds> time_limit(const std::optional<double>& seconds);

ProgramOutcome run_segment_program(const SegmentProgram& program,
                                   const std::filesystem::path& work_dir);

// The last `max_lines` lines of `text`, each indented by four spaces (for error messages).
std::string tail_lines(const std::string& text, std::size_t max_lines);

// The whole text of a log file the walker's program wrote ("" when it cannot be read).
std::string read_log(const std::filesystem::path& path);

// tail_lines of a log file: what an engine quotes of its program's own log (mdout, md.log).
std::string file_tail(const std::filesystem::path& path, std::size_t max_lines);

// argv[0] as it will be run: itself when it contains '/', else its first match in $PATH.
// Throws core::ConfigError naming `key` when it is not an executable file.
std::filesystem::path find_program(const std::string& name, const std::string& key);

}  // namespace trails::engines::external
