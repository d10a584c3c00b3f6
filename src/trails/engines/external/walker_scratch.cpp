#include "trails/engines/external/walker_scratch.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>

#include "trails/core/error.h"

namespace trails::engines::external {

std::filesystem::path scratch_root(const std::optional<std::filesystem::path>& configured) {
  if (configured) return *configured;
  const char* tmp = std::getenv("TMPDIR");
  return (tmp != nullptr && *tmp != '\0') ? std::filesystem::path(tmp) : "/tmp";
}

WalkerScratch::WalkerScratch(const std::optional<std::filesystem::path>& root,
                             const std::string& label, bool keep_files)
    : keep_(keep_files) {
  const std::filesystem::path base = scratch_root(root);
  std::string templ = (base / ("trails-" + label + "-XXXXXX")).string();
  if (::mkdtemp(templ.data()) == nullptr) {
    throw core::InputError("cannot create a walker directory in " + base.string() + ": " +
                           std::strerror(errno) +
                           "; set execution.scratch or TMPDIR to a writable directory");
  }
  dir_ = templ;
}

WalkerScratch::~WalkerScratch() {
  if (keep_) return;
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);  // best effort: a leftover is only disk space
}

std::string file_tail(const std::filesystem::path& path, std::size_t max_lines) {
  std::ifstream in(path);
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    lines.push_back(line);
    if (lines.size() > max_lines) lines.pop_front();
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

}  // namespace trails::engines::external
