// The files a command writes because the user named them (export --cvs, analyze --json, plot -o,
// init -o, ...): one check before anything is written, and one way to write them
// (docs/reliability.md#inputs-and-outputs).
//   - A target that a run directory's store owns (ledger.sqlite and its -wal/-shm, shards/,
//     prepared/, project_file.tmp/, output.log, convergence.json: docs/file-formats.md) is
//     refused: overwriting it would destroy the run.
//   - An existing target that is not a regular file (directory, FIFO, device, socket) is refused.
//   - A symlink is written through: the file it points at is replaced, the link is kept.
//   - Two outputs of one command that are the same file (canonical paths) are refused.
// Refusals are UsageError (exit 2), before anything is written. Writes go to a temporary file
// beside the real target, are checked, fsynced and renamed over it; a failure removes the
// temporary, leaves the target as it was and throws StoreError naming the path and errno text.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trails::core {

struct OutputTarget {
  std::string option;           // how the user named it, for messages ("--cvs")
  std::filesystem::path given;  // as given
  std::filesystem::path path;   // absolute, every symlink resolved: the file really replaced
};

// Whether the target's directory must exist already or the command creates it (plot -o).
enum class ParentDir { MustExist, MayBeCreated };

// Throws UsageError for a refused target (above).
OutputTarget check_output(std::string option, const std::filesystem::path& given,
                          ParentDir parent = ParentDir::MustExist);

// Each (option, path) checked as above, and no two the same file.
std::vector<OutputTarget> check_outputs(
    const std::vector<std::pair<std::string, std::filesystem::path>>& outputs,
    ParentDir parent = ParentDir::MustExist);

// A temporary file beside the target (same extension, so writers that pick a format by name
// work on temp_path()); commit() fsyncs and renames it over the target, the destructor removes
// it when commit() did not run.
class PendingOutput {
 public:
  explicit PendingOutput(const OutputTarget& target);
  PendingOutput(const PendingOutput&) = delete;
  PendingOutput& operator=(const PendingOutput&) = delete;
  ~PendingOutput();

  const std::filesystem::path& temp_path() const { return temp_; }
  void write(std::string_view content);
  void commit();

 private:
  [[noreturn]] void fail(const std::string& what);

  OutputTarget target_;
  std::filesystem::path temp_;
  int fd_ = -1;
  bool committed_ = false;
};

// PendingOutput with `content`, committed.
void write_output(const OutputTarget& target, std::string_view content);

}  // namespace trails::core
