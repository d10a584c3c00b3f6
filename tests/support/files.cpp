#include "files.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>

namespace trails::test_support {
namespace fs = std::filesystem;
namespace {

// This process's directory of fresh_dir(), removed at exit.
class ProcessDir {
 public:
  ProcessDir() : path_(fs::temp_directory_path() / ("trails-test-" + std::to_string(::getpid()))) {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ~ProcessDir() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ProcessDir(const ProcessDir&) = delete;
  ProcessDir& operator=(const ProcessDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

}  // namespace

std::vector<char> read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    ADD_FAILURE() << "cannot read " << file;
    return {};
  }
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string read_text(const fs::path& file) {
  const std::vector<char> bytes = read_bytes(file);
  return {bytes.begin(), bytes.end()};
}

fs::path write_text(const fs::path& file, std::string_view text) {
  if (file.has_parent_path()) fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
  return file;
}

void write_bytes(const fs::path& file, const std::vector<char>& bytes) {
  write_text(file, std::string_view(bytes.data(), bytes.size()));
}

fs::path fresh_dir(std::string_view name) {
  static const ProcessDir root;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string leaf =
      info != nullptr ? std::string(info->test_suite_name()) + "." + info->name() : "no-test";
  std::replace(leaf.begin(), leaf.end(), '/', '_');  // parameterised names
  if (!name.empty()) leaf += "-" + std::string(name);
  const fs::path dir = root.path() / leaf;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<std::string> Csv::column(std::string_view name) const {
  const auto at = std::find(header.begin(), header.end(), name);
  if (at == header.end()) {
    ADD_FAILURE() << "no column " << name;
    return {};
  }
  const auto c = static_cast<std::size_t>(at - header.begin());
  std::vector<std::string> out;
  for (const auto& row : rows) out.push_back(c < row.size() ? row[c] : std::string());
  return out;
}

Csv read_csv(const fs::path& file) {
  std::istringstream in(read_text(file));
  Csv csv;
  std::string line;
  if (std::getline(in, line)) csv.header = split(line);
  while (std::getline(in, line)) csv.rows.push_back(split(line));
  return csv;
}

}  // namespace trails::test_support
