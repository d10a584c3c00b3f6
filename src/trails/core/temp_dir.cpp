#include "trails/core/temp_dir.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "trails/core/error.h"

namespace trails::core {
namespace fs = std::filesystem;

TempDir::TempDir(std::string_view prefix) {
  std::string tmpl = (fs::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr) {
    throw StoreError("cannot create a temporary directory " + tmpl + ": " + std::strerror(errno));
  }
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

}  // namespace trails::core
