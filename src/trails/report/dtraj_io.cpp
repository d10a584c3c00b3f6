#include "trails/report/dtraj_io.h"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "trails/core/error.h"

namespace trails::report {
namespace {

[[noreturn]] void bad(const std::filesystem::path& file, const std::string& what) {
  throw core::InputError(file.string() + ": " + what);
}

std::string trim(std::string s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return {};
  const auto b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

// The value of 'key' in the NPY header's Python dict literal, as raw text.
std::string dict_value(const std::string& header, const std::string& key,
                       const std::filesystem::path& file) {
  for (const char q : {'\'', '"'}) {
    const std::string k = std::string(1, q) + key + q;
    auto p = header.find(k);
    if (p == std::string::npos) continue;
    p = header.find(':', p + k.size());
    if (p == std::string::npos) break;
    ++p;
    while (p < header.size() && header[p] == ' ') ++p;
    std::size_t end = p;
    if (p < header.size() && header[p] == '(') {
      end = header.find(')', p);
      if (end == std::string::npos) break;
      return header.substr(p, end - p + 1);
    }
    if (p < header.size() && (header[p] == '\'' || header[p] == '"')) {
      end = header.find(header[p], p + 1);
      if (end == std::string::npos) break;
      return header.substr(p + 1, end - p - 1);
    }
    end = header.find_first_of(",}", p);
    return trim(header.substr(p, end - p));
  }
  bad(file, "NPY header has no '" + key + "' entry: " + header);
}

}  // namespace

std::vector<int> read_npy_dtraj(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) bad(file, "cannot open the file");
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) {
    bad(file, "not an NPY file (no \\x93NUMPY magic); give a .npy from numpy.save or a text file "
              "with one state per line");
  }
  const int major = static_cast<unsigned char>(magic[6]);
  std::uint32_t header_len = 0;
  if (major == 1) {
    unsigned char b[2];
    if (!in.read(reinterpret_cast<char*>(b), 2)) bad(file, "truncated NPY header");
    header_len = b[0] | (b[1] << 8);
  } else if (major == 2 || major == 3) {
    unsigned char b[4];
    if (!in.read(reinterpret_cast<char*>(b), 4)) bad(file, "truncated NPY header");
    header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<std::uint32_t>(b[3]) << 24);
  } else {
    bad(file, "NPY format version " + std::to_string(major) + " is not supported (1, 2 or 3)");
  }
  std::string header(header_len, '\0');
  if (!in.read(header.data(), header_len)) bad(file, "truncated NPY header");

  const std::string descr = dict_value(header, "descr", file);
  const std::string fortran = dict_value(header, "fortran_order", file);
  const std::string shape = dict_value(header, "shape", file);
  if (fortran != "False") bad(file, "fortran_order must be False (got " + fortran + ")");
  if (descr.size() < 3 || (descr[1] != 'i' && descr[1] != 'u')) {
    bad(file, "dtype " + descr + " is not an integer array; state ids must be integers "
              "(<i4, <i8, <u4, ...)");
  }
  const char order = descr[0];
  int size = 0;
  std::from_chars(descr.data() + 2, descr.data() + descr.size(), size);
  if (size != 1 && size != 2 && size != 4 && size != 8) bad(file, "unsupported dtype " + descr);
  if (order == '>' && size > 1) bad(file, "big-endian dtype " + descr + " is not supported; save it as little-endian");
  if (order != '<' && order != '|' && order != '=') bad(file, "unsupported dtype " + descr);
  const bool is_signed = descr[1] == 'i';
  // shape "(N,)": one dimension.
  std::string dims = shape.substr(1, shape.size() - 2);
  if (!dims.empty() && dims.back() == ',') dims.pop_back();
  dims = trim(dims);
  std::int64_t n = -1;
  if (dims.empty() || dims.find(',') != std::string::npos ||
      std::from_chars(dims.data(), dims.data() + dims.size(), n).ec != std::errc() || n < 0) {
    bad(file, "shape " + shape + " is not one-dimensional; one file holds one trajectory (N,)");
  }
  std::vector<unsigned char> raw(static_cast<std::size_t>(n) * static_cast<std::size_t>(size));
  if (!in.read(reinterpret_cast<char*>(raw.data()), static_cast<std::streamsize>(raw.size()))) {
    bad(file, "data shorter than the header's shape " + shape);
  }
  std::vector<int> out(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint64_t u = 0;
    for (int b = 0; b < size; ++b) u |= static_cast<std::uint64_t>(raw[static_cast<std::size_t>(i * size + b)]) << (8 * b);
    std::int64_t v;
    if (is_signed) {
      const int shift = 64 - 8 * size;
      v = static_cast<std::int64_t>(u << shift) >> shift;  // sign-extend
    } else if (u > static_cast<std::uint64_t>(std::numeric_limits<int>::max())) {
      bad(file, "element " + std::to_string(i) + " = " + std::to_string(u) + " is too large for a state id");
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
