#include "trails/core/npy.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <fstream>

#include "trails/core/error.h"

namespace trails::core {
namespace {

[[noreturn]] void bad(const std::filesystem::path& file, const std::string& what) {
  throw InputError(file.string() + ": " + what);
}

std::string trim(const std::string& s) {
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

// "(2, 5)", "(7,)", "()" → dimensions.
std::vector<std::int64_t> parse_shape(const std::string& shape, const std::filesystem::path& file) {
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')') {
    bad(file, "NPY header shape " + shape + " is not a tuple");
  }
  std::vector<std::int64_t> dims;
  std::string rest = shape.substr(1, shape.size() - 2);
  std::size_t pos = 0;
  while (pos <= rest.size()) {
    const auto comma = rest.find(',', pos);
    const std::string item =
        trim(rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    if (!item.empty()) {
      std::int64_t n = -1;
      const auto r = std::from_chars(item.data(), item.data() + item.size(), n);
      if (r.ec != std::errc() || r.ptr != item.data() + item.size() || n < 0) {
        bad(file, "NPY header shape " + shape + " is not a tuple of sizes");
      }
      dims.push_back(n);
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return dims;
}

std::uint64_t raw_element(const NpyArray& a, std::int64_t i) {
  std::uint64_t u = 0;
  const auto base = static_cast<std::size_t>(i) * static_cast<std::size_t>(a.item_size);
  for (int b = 0; b < a.item_size && b < 8; ++b) {
    u |= static_cast<std::uint64_t>(a.data[base + static_cast<std::size_t>(b)]) << (8 * b);
  }
  return u;
}

}  // namespace

std::int64_t NpyArray::n_elements() const {
  std::int64_t n = 1;
  for (const auto d : shape) n *= d;
  return n;
}

std::uint64_t NpyArray::uint_at(std::int64_t i) const { return raw_element(*this, i); }

std::int64_t NpyArray::int_at(std::int64_t i) const {
  const std::uint64_t u = raw_element(*this, i);
  if (kind != 'i' || item_size >= 8) return static_cast<std::int64_t>(u);
  const int shift = 64 - 8 * item_size;
  return static_cast<std::int64_t>(u << shift) >> shift;  // sign-extend
}

double NpyArray::float_at(std::int64_t i) const {
  const std::uint64_t u = raw_element(*this, i);
  if (item_size == 4) {
    const auto w = static_cast<std::uint32_t>(u);
    float f;
    std::memcpy(&f, &w, sizeof f);
    return f;
  }
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

NpyArray read_npy(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) bad(file, "cannot open the file");
  char magic[8];
  if (!in.read(magic, 8) || std::memcmp(magic, "\x93NUMPY", 6) != 0) {
    bad(file, "not an NPY file (no \\x93NUMPY magic); write it with numpy.save");
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
  // Sizes the file announces are checked against its length before anything is allocated: a
  // few bytes must not ask for gigabytes (fuzz/corpus/npy).
  std::error_code ec;
  const auto file_bytes = std::filesystem::file_size(file, ec);
  const std::uint64_t after_length = static_cast<std::uint64_t>(in.tellg());
  if (ec || file_bytes < after_length || header_len > file_bytes - after_length) {
    bad(file, "truncated NPY header");
  }
  std::string header(header_len, '\0');
  if (!in.read(header.data(), header_len)) bad(file, "truncated NPY header");

  NpyArray a;
  a.descr = dict_value(header, "descr", file);
  const std::string fortran = dict_value(header, "fortran_order", file);
  a.shape_text = dict_value(header, "shape", file);
  if (fortran != "False") bad(file, "fortran_order must be False (got " + fortran + ")");
  if (a.descr.size() < 3) bad(file, "unsupported dtype " + a.descr);
  const char order = a.descr[0];
  a.kind = a.descr[1];
  const auto r = std::from_chars(a.descr.data() + 2, a.descr.data() + a.descr.size(), a.item_size);
  if (r.ec != std::errc() || r.ptr != a.descr.data() + a.descr.size() || a.item_size <= 0) {
    bad(file, "unsupported dtype " + a.descr);
  }
  if (order == '>' && a.item_size > 1) {
    bad(file, "big-endian dtype " + a.descr + " is not supported; save it as little-endian");
  }
  if (order != '<' && order != '|' && order != '=' && order != '>') {
    bad(file, "unsupported dtype " + a.descr);
  }
  a.shape = parse_shape(a.shape_text, file);
  const std::uint64_t data_bytes = file_bytes - after_length - header_len;
  std::uint64_t expected = static_cast<std::uint64_t>(a.item_size);
  if (std::find(a.shape.begin(), a.shape.end(), 0) != a.shape.end()) expected = 0;
  for (const auto d : a.shape) {
    const auto n = static_cast<std::uint64_t>(d);
    if (n != 0 && expected > data_bytes / n) {  // more than the file holds (and no overflow)
      bad(file, "data shorter than the header's shape " + a.shape_text);
    }
    expected *= n;
  }
  if (expected > data_bytes) bad(file, "data shorter than the header's shape " + a.shape_text);
  a.data.resize(static_cast<std::size_t>(expected));
  if (!in.read(reinterpret_cast<char*>(a.data.data()),
               static_cast<std::streamsize>(a.data.size()))) {
    bad(file, "data shorter than the header's shape " + a.shape_text);
  }
  return a;
}

namespace {

// The .npy bytes of a float64 array (format version 1.0, C order); `where` names it in errors.
std::string npy_bytes(const std::string& where, std::span<const double> values,
                      const std::vector<std::int64_t>& shape) {
  std::int64_t n = 1;
  std::string dims;
  for (const std::int64_t d : shape) {
    n *= d;
    dims += std::to_string(d) + ", ";
  }
  if (shape.size() > 1) dims.resize(dims.size() - 2);  // "(3,)" keeps its comma, "(2, 3)" not
  if (n != static_cast<std::int64_t>(values.size())) {
    throw InputError(where + ": shape (" + dims + ") does not hold " +
                     std::to_string(values.size()) + " values");
  }
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Magic (6) + version (2) + length (2) + header + '\n' is padded to a multiple of 64.
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>((header.size() >> 8) & 0xff);
  bytes += header;
  static_assert(std::endian::native == std::endian::little, "npy files are written little-endian");
  bytes.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
  return bytes;
}

void write_bytes(const std::filesystem::path& file, const std::string& bytes) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw StoreError("cannot write " + file.string());
}

// CRC-32 (IEEE 802.3, as ZIP stores it).
std::uint32_t crc32_of(const std::string& bytes) {
  std::uint32_t crc = 0xffffffffu;
  for (const char ch : bytes) {
    crc ^= static_cast<unsigned char>(ch);
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

void put_le(std::string& out, std::uint64_t value, int bytes) {
  for (int k = 0; k < bytes; ++k) out += static_cast<char>((value >> (8 * k)) & 0xff);
}

}  // namespace

void write_npy(const std::filesystem::path& file, std::span<const double> values,
               const std::vector<std::int64_t>& shape) {
  write_bytes(file, npy_bytes(file.string(), values, shape));
}

void write_npz(const std::filesystem::path& file, const std::vector<NpzEntry>& arrays) {
  // An uncompressed ZIP archive of NAME.npy members, as numpy.savez writes (ZIP_STORED).
  std::string body, directory;
  for (const auto& a : arrays) {
    const std::string name = a.name + ".npy";
    const std::string data = npy_bytes(file.string() + ": " + a.name, a.values, a.shape);
    if (data.size() >= 0xffffffffu) throw InputError(file.string() + ": " + a.name + " too large");
    const std::uint32_t crc = crc32_of(data);
    const auto offset = body.size();
    const auto header = [&](std::string& out, bool central) {
      put_le(out, central ? 0x02014b50u : 0x04034b50u, 4);
      if (central) put_le(out, 20, 2);  // version made by
      put_le(out, 20, 2);               // version needed
      put_le(out, 0, 2);                // flags
      put_le(out, 0, 2);                // stored
      put_le(out, 0, 2);                // time
      put_le(out, 0x21, 2);             // date: 1980-01-01
      put_le(out, crc, 4);
      put_le(out, data.size(), 4);
      put_le(out, data.size(), 4);
      put_le(out, name.size(), 2);
      put_le(out, 0, 2);  // extra
      if (central) {
        put_le(out, 0, 2);  // comment
        put_le(out, 0, 2);  // disk
        put_le(out, 0, 2);  // internal attributes
        put_le(out, 0, 4);  // external attributes
        put_le(out, offset, 4);
      }
      out += name;
    };
    header(body, false);
    body += data;
    header(directory, true);
  }
  std::string end;
  put_le(end, 0x06054b50u, 4);
  put_le(end, 0, 4);  // disk numbers
  put_le(end, arrays.size(), 2);
  put_le(end, arrays.size(), 2);
  put_le(end, directory.size(), 4);
  put_le(end, body.size(), 4);
  put_le(end, 0, 2);
  write_bytes(file, body + directory + end);
}

}  // namespace trails::core
