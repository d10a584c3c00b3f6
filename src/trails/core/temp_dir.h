// A private temporary directory (mkdtemp under TMPDIR or /tmp), removed with everything in it
// when the object goes out of scope. For reports that let other commands draw into a scratch
// directory before anything reaches the user's output.
#pragma once

#include <filesystem>
#include <string_view>

namespace trails::core {

class TempDir {
 public:
  // `prefix` starts the directory's name ("trails-report" -> /tmp/trails-report-Ab12Cd).
  // Throws StoreError when it cannot be created.
  explicit TempDir(std::string_view prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace trails::core
