// check_classic_header (netcdf_header.h), after the NetCDF classic format specification: header
// = magic numrecs dim_list gatt_list var_list; 4-byte big-endian integers, 8-byte counts and
// sizes in CDF-5, 8-byte variable offsets in CDF-2 and CDF-5; names and attribute values padded
// to 4 bytes.
#include "trails/engines/amber/netcdf_header.h"

#include <array>
#include <cstdint>
#include <fstream>
#include <string>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::engines::amber {
namespace {

namespace fs = std::filesystem;

constexpr std::uint32_t kAbsent = 0;
constexpr std::uint32_t kDimension = 0x0A;
constexpr std::uint32_t kVariable = 0x0B;
constexpr std::uint32_t kAttribute = 0x0C;

std::uint64_t padded(std::uint64_t n) { return n + (4 - n % 4) % 4; }

class HeaderReader {
 public:
  HeaderReader(const fs::path& file, std::uint64_t size, int version)
      : file_(file), in_(file, std::ios::binary), size_(size), version_(version) {
    skip(4);  // the magic, already read
  }

  std::uint32_t u32() { return static_cast<std::uint32_t>(be(4)); }
  // A count (nelems, dim_length, vsize): 8 bytes in CDF-5.
  std::uint64_t count() { return be(version_ == 5 ? 8 : 4); }
  std::uint64_t count_bytes() const { return version_ == 5 ? 8 : 4; }
  std::uint64_t offset_bytes() const { return version_ == 1 ? 4 : 8; }
  std::uint64_t offset() { return be(static_cast<int>(offset_bytes())); }

  // `n` entries of at least `each` bytes must fit in what is left of the file.
  void need(std::uint64_t n, std::uint64_t each, const char* what) {
    if (each != 0 && n > (size_ - at_) / each) {
      fail(fmt::format("{} {} declared, but only {} bytes are left in the file", n, what,
                       size_ - at_));
    }
  }
  void skip(std::uint64_t n) {
    need(n, 1, "bytes");
    in_.seekg(static_cast<std::streamoff>(n), std::ios::cur);
    at_ += n;
  }
  void name() {
    const std::uint64_t n = count();
    need(padded(n), 1, "name bytes");
    skip(padded(n));
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw core::InputError(
        fmt::format("{}: not a valid NetCDF file: {} (header byte {})", file_.string(), what, at_));
  }

 private:
  std::uint64_t be(int bytes) {
    need(static_cast<std::uint64_t>(bytes), 1, "bytes");
    std::array<unsigned char, 8> b{};
    in_.read(reinterpret_cast<char*>(b.data()), bytes);
    if (!in_) fail("cannot read the header");
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | b[static_cast<std::size_t>(i)];
    at_ += static_cast<std::uint64_t>(bytes);
    return v;
  }

  const fs::path& file_;
  std::ifstream in_;
  std::uint64_t size_;
  std::uint64_t at_ = 0;
  int version_;
};

// Bytes of one value of an external type: 1 byte, char, short, int, float, double; in CDF-5
// also ubyte, ushort, uint, int64, uint64. 0: not a type.
std::uint64_t type_bytes(std::uint32_t type, int version) {
  static constexpr std::array<std::uint64_t, 12> kBytes{0, 1, 1, 2, 4, 4, 8, 1, 2, 4, 8, 8};
  const std::uint32_t last = version == 5 ? 11 : 6;
  return type >= 1 && type <= last ? kBytes[type] : 0;
}

// A list's tag and count: ABSENT is a zero tag with a zero count.
std::uint64_t list_header(HeaderReader& r, std::uint32_t tag, const char* what) {
  const std::uint32_t got = r.u32();
  const std::uint64_t n = r.count();
  if (got == kAbsent && n == 0) return 0;
  if (got != tag) r.fail(fmt::format("the {} list has tag {:#x}, expected {:#x}", what, got, tag));
  return n;
}

void attributes(HeaderReader& r, int version) {
  const std::uint64_t n = list_header(r, kAttribute, "attribute");
  // name length, type, value count
  r.need(n, 2 * r.count_bytes() + 4, "attributes");
  for (std::uint64_t i = 0; i < n; ++i) {
    r.name();
    const std::uint32_t type = r.u32();
    const std::uint64_t bytes = type_bytes(type, version);
    if (bytes == 0) r.fail(fmt::format("attribute type {} is not a NetCDF type", type));
    const std::uint64_t values = r.count();
    r.need(values, bytes, "attribute values");
    r.skip(padded(values * bytes));
  }
}

}  // namespace

void check_classic_header(const fs::path& file) {
  std::array<char, 4> magic{};
  {
    std::ifstream in(file, std::ios::binary);
    in.read(magic.data(), magic.size());
    if (!in || magic[0] != 'C' || magic[1] != 'D' || magic[2] != 'F') return;
  }
  const int version = static_cast<unsigned char>(magic[3]);
  std::error_code ec;
  const std::uint64_t size = fs::file_size(file, ec);
  if (ec) throw core::InputError(file.string() + ": cannot read its size: " + ec.message());
  HeaderReader r(file, size, version);
  if (version != 1 && version != 2 && version != 5) {
    r.fail(fmt::format("version byte {} (1, 2 or 5 expected)", version));
  }
  (void)r.count();  // numrecs (or STREAMING)

  const std::uint64_t n_dims = list_header(r, kDimension, "dimension");
  r.need(n_dims, 2 * r.count_bytes(), "dimensions");  // name length, length
  for (std::uint64_t i = 0; i < n_dims; ++i) {
    r.name();
    (void)r.count();
  }
  attributes(r, version);  // global

  const std::uint64_t n_vars = list_header(r, kVariable, "variable");
  // name length, dimension count, attribute list (tag, count), type, vsize, begin
  r.need(n_vars, 4 * r.count_bytes() + 8 + r.offset_bytes(), "variables");
  for (std::uint64_t i = 0; i < n_vars; ++i) {
    r.name();
    const std::uint64_t rank = r.count();
    r.need(rank, r.count_bytes(), "dimension ids");
    for (std::uint64_t d = 0; d < rank; ++d) {
      if (const std::uint64_t id = r.count(); id >= n_dims) {
        r.fail(fmt::format("a variable names dimension {} of {}", id, n_dims));
      }
    }
    attributes(r, version);
    const std::uint32_t type = r.u32();
    if (type_bytes(type, version) == 0) {
      r.fail(fmt::format("variable type {} is not a NetCDF type", type));
    }
    (void)r.count();   // vsize
    (void)r.offset();  // begin
  }
}

}  // namespace trails::engines::amber
