#include "trails/report/msm/dtraj_io.h"

#include <charconv>
#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "trails/core/error.h"
#include "trails/core/npy.h"

namespace trails::report {
namespace {

[[noreturn]] void bad(const std::filesystem::path& file, const std::string& what) {
  throw core::InputError(file.string() + ": " + what);
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return {};
  const auto b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

}  // namespace

std::vector<int> read_npy_dtraj(const std::filesystem::path& file) {
  const core::NpyArray a = core::read_npy(file);
  if (a.kind != 'i' && a.kind != 'u') {
    bad(file, "dtype " + a.descr +
                  " is not an integer array; state ids must be integers "
                  "(<i4, <i8, <u4, ...)");
  }
  if (a.item_size != 1 && a.item_size != 2 && a.item_size != 4 && a.item_size != 8) {
    bad(file, "unsupported dtype " + a.descr);
  }
  if (a.shape.size() != 1) {
    bad(file,
        "shape " + a.shape_text + " is not one-dimensional; one file holds one trajectory (N,)");
  }
  const std::int64_t n = a.shape[0];
  std::vector<int> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t v;
    if (a.kind == 'i') {
      v = a.int_at(i);
    } else if (const auto u = a.uint_at(i);
               u > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
      bad(file, "element " + std::to_string(i) + " = " + std::to_string(u) +
                    " is too large for a state id");
    } else {
      v = static_cast<std::int64_t>(u);
    }
    if (v < 0 || v > std::numeric_limits<int>::max()) {
      bad(file, "element " + std::to_string(i) + " = " + std::to_string(v) +
                    " is not a state id (non-negative integers only)");
    }
    out[static_cast<std::size_t>(i)] = static_cast<int>(v);
  }
  return out;
}

std::vector<int> read_text_dtraj(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) bad(file, "cannot open the file");
  std::vector<int> out;
  std::string line;
  for (int no = 1; std::getline(in, line); ++no) {
    const std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    int v = -1;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size() || v < 0) {
      throw core::InputError(file.string() + ":" + std::to_string(no) + ": '" + t +
                             "' is not a state id (one non-negative integer per line)");
    }
    out.push_back(v);
  }
  return out;
}

std::vector<int> read_dtraj(const std::filesystem::path& file) {
  if (!std::filesystem::is_regular_file(file)) bad(file, "no such file");
  std::ifstream in(file, std::ios::binary);
  char c = 0;
  in.get(c);
  if (file.extension() == ".npy" || c == '\x93') return read_npy_dtraj(file);
  return read_text_dtraj(file);
}

}  // namespace trails::report
