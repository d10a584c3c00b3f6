// Files in tests: reading and writing whole files, a fresh directory per test, and the CSV tables
// a run's exports and outputs are (trails export, a swarm's metrics.csv). Part of the
// trails_test_support library every test executable links (docs/architecture.md, "Tests").
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace trails::test_support {

// The whole file; a file that cannot be read fails the calling test (ADD_FAILURE) and reads as
// empty.
std::string read_text(const std::filesystem::path& file);
std::vector<char> read_bytes(const std::filesystem::path& file);
// Writes (replaces) the file, creating its directory; returns its path.
std::filesystem::path write_text(const std::filesystem::path& file, std::string_view text);
void write_bytes(const std::filesystem::path& file, const std::vector<char>& bytes);

// An empty directory for the running test, TMPDIR/trails-test-PID/SUITE.TEST[-name] (made
// afresh on each call); the process's directory is removed when it exits.
std::filesystem::path fresh_dir(std::string_view name = {});

// A table with a header line, cells split at commas (no quoting: what Trails writes).
struct Csv {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  // The cells of one column, top to bottom; a missing column fails the calling test.
  std::vector<std::string> column(std::string_view name) const;
};
Csv read_csv(const std::filesystem::path& file);

}  // namespace trails::test_support
