// Per-walker work directories of the external engines (docs/engines.md, "Scratch"): one private
// directory per walker under execution.scratch, else $TMPDIR, else /tmp; removed when the walker
// is done unless engine.keep_walker_files is set or the walker failed (then its path goes into
// the error, with the files, logs included, left for the user). And the tail of a log file for
// error messages.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace trails::engines::external {

class WalkerScratch {
 public:
  // Creates ROOT/trails-LABEL-XXXXXX. Throws InputError naming ROOT when it cannot.
  WalkerScratch(const std::optional<std::filesystem::path>& root, const std::string& label,
                bool keep_files);
  ~WalkerScratch();
  WalkerScratch(const WalkerScratch&) = delete;
  WalkerScratch& operator=(const WalkerScratch&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  // Leave the directory in place (a failed walker); returns its path.
  const std::filesystem::path& keep() {
    keep_ = true;
    return dir_;
  }

 private:
  std::filesystem::path dir_;
  bool keep_ = false;
};

// The scratch root: `configured`, else $TMPDIR, else /tmp.
std::filesystem::path scratch_root(const std::optional<std::filesystem::path>& configured);

// The last `max_lines` lines of a text file ("" when it cannot be read), for error messages.
std::string file_tail(const std::filesystem::path& path, std::size_t max_lines);

}  // namespace trails::engines::external
