// What every fuzz target shares (docs/reliability.md, "Fuzzing"): the readers under test take a
// path, so each input is written to one private scratch file per process, which is removed when
// the process ends. A target accepts the errors Trails reports for bad input (core::Error and
// its kinds); anything else that escapes — another exception, a crash, a sanitizer report — is
// a finding.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "trails/core/error.h"

namespace trails::fuzz {

// The scratch file `input<extension>` in a directory of this process, holding `data`.
inline std::filesystem::path input_file(const std::uint8_t* data, std::size_t size,
                                        const std::string& extension) {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() /
             ("trails-fuzz-" + std::to_string(static_cast<long>(::getpid())));
    std::filesystem::create_directories(d);
    static const std::filesystem::path removed_at_exit = d;
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(removed_at_exit, ec);
    });
    return d;
  }();
  const auto file = dir / ("input" + extension);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) std::abort();  // the scratch directory is gone or full: not a finding
  return file;
}

// Writes the input to the scratch file and reads it with `read`, accepting the errors Trails
// reports for bad input (trails/core/error.h must be included by the target).
template <typename Read>
int read_as_file(const std::uint8_t* data, std::size_t size, const std::string& extension,
                 Read read) {
  const auto file = input_file(data, size, extension);
  try {
    read(file);
  } catch (const core::Error&) {
    // a reported problem with the file: what bad input must give
  }
  return 0;
}

}  // namespace trails::fuzz
