// Runs tests/structure/pyref.py under /usr/bin/python3 (MDAnalysis, mdtraj) and parses its JSON.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "support/files.h"

namespace trails::structure::testing {

inline std::filesystem::path source_dir() { return TRAILS_SOURCE_DIR; }
inline std::filesystem::path data_dir() { return source_dir() / "tests/data/structures"; }

using test_support::fresh_dir;

// Runs `pyref.py args...`; fails the test (ADD_FAILURE) and returns null when Python fails.
inline nlohmann::json run_pyref(const std::string& args) {
  const std::string command = "/usr/bin/python3 -W ignore " +
                              (source_dir() / "tests/structure/pyref.py").string() + " " + args +
                              " 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) {
    ADD_FAILURE() << "cannot run " << command;
    return nullptr;
  }
  std::string out;
  char buffer[65536];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  const int status = ::pclose(pipe);
  if (status != 0) {
    ADD_FAILURE() << command << " failed with status " << status
                  << " (needs /usr/bin/python3 with MDAnalysis and mdtraj)";
    return nullptr;
  }
  return nlohmann::json::parse(out);
}

}  // namespace trails::structure::testing
