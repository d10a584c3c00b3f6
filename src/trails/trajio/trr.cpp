// TRR reader (trr.h): a bounds-checked walk over XDR frames.
#include "trails/trajio/trr.h"

#include <bit>
#include <fstream>
#include <iterator>
#include <string>

#include "trails/core/error.h"

namespace trails::trajio {
namespace {

constexpr std::int32_t kTrrMagic = 1993;
constexpr std::string_view kTrrVersion = "GMX_trn_file";

// A cursor over the file's bytes; every read names the frame and offset when it runs out.
class XdrCursor {
 public:
  XdrCursor(const std::filesystem::path& path, std::vector<unsigned char> bytes)
      : path_(path), bytes_(std::move(bytes)) {}

  bool at_end() const { return pos_ == bytes_.size(); }
  std::size_t offset() const { return pos_; }
  void set_frame(std::size_t frame) { frame_ = frame; }

  std::uint32_t u32() {
    need(4, "a 4-byte field");
    const std::uint32_t v = (std::uint32_t{bytes_[pos_]} << 24) |
                            (std::uint32_t{bytes_[pos_ + 1]} << 16) |
                            (std::uint32_t{bytes_[pos_ + 2]} << 8) | bytes_[pos_ + 3];
    pos_ += 4;
    return v;
  }
  std::int32_t i32() { return static_cast<std::int32_t>(u32()); }
  double real(bool is_double) {
    if (!is_double) return std::bit_cast<float>(u32());
    const std::uint64_t hi = u32();
    return std::bit_cast<double>((hi << 32) | u32());
  }
  std::string text(std::size_t n) {
    need((n + 3) / 4 * 4, "a string");
    std::string s(reinterpret_cast<const char*>(&bytes_[pos_]), n);
    pos_ += (n + 3) / 4 * 4;
    return s;
  }
  void skip(std::size_t n, const char* what) {
    need(n, what);
    pos_ += n;
  }
  // Fails unless n more bytes remain (before a block's storage is allocated).
  void expect(std::size_t n, const char* what) const { need(n, what); }
  [[noreturn]] void fail(const std::string& what) const {
    throw core::InputError(path_.string() + ": TRR frame " + std::to_string(frame_) + " (byte " +
                           std::to_string(pos_) + "): " + what);
  }

 private:
  void need(std::size_t n, const char* what) const {
    if (bytes_.size() - pos_ < n) {
      fail(std::string("the file ends inside ") + what + " (truncated; " +
           std::to_string(bytes_.size()) + " bytes)");
    }
  }

  const std::filesystem::path& path_;
  std::vector<unsigned char> bytes_;
  std::size_t pos_ = 0;
  std::size_t frame_ = 0;
};

struct Header {
  std::int32_t box_size = 0, vir_size = 0, pres_size = 0, x_size = 0, v_size = 0, f_size = 0;
  std::int64_t other_size = 0;  // ir, e, top, sym: blocks GROMACS no longer fills; skipped
  std::int32_t natoms = 0;
  std::int64_t step = 0;
  bool is_double = false;
};

Header read_header(XdrCursor& in) {
  if (in.i32() != kTrrMagic) in.fail("not a TRR frame (magic number is not 1993)");
  const std::int32_t slen = in.i32();
  const std::int32_t len = in.i32();
  if (slen != static_cast<std::int32_t>(kTrrVersion.size()) + 1 ||
      len != static_cast<std::int32_t>(kTrrVersion.size()) || in.text(len) != kTrrVersion) {
    in.fail("the version string is not \"GMX_trn_file\"");
  }
  Header h;
  const std::int32_t ir = in.i32(), e = in.i32();
  h.box_size = in.i32();
  h.vir_size = in.i32();
  h.pres_size = in.i32();
  const std::int32_t top = in.i32(), sym = in.i32();
  h.x_size = in.i32();
  h.v_size = in.i32();
  h.f_size = in.i32();
  h.natoms = in.i32();
  h.step = in.i32();
  (void)in.i32();  // nre
  for (std::int32_t s : {ir, e, top, sym, h.box_size, h.vir_size, h.pres_size, h.x_size, h.v_size,
                         h.f_size, h.natoms}) {
    if (s < 0) in.fail("a negative block size or atom count");
  }
  // In 64 bits: four (or three) sizes up to 2^31 - 1 each overflow 32 (fuzz/corpus/trr).
  h.other_size = std::int64_t{ir} + e + top + sym;
  // The size of `real` follows from any block present (GROMACS' own rule).
  const std::int64_t vec = std::int64_t{h.natoms} * 3;
  std::int64_t real_size = 0;
  if (h.box_size)
    real_size = h.box_size / 9;
  else if (h.x_size && vec)
    real_size = h.x_size / vec;
  else if (h.v_size && vec)
    real_size = h.v_size / vec;
  else if (h.f_size && vec)
    real_size = h.f_size / vec;
  if (real_size != 4 && real_size != 8) in.fail("cannot tell float from double: no sized block");
  h.is_double = real_size == 8;
  for (std::int32_t s : {h.x_size, h.v_size, h.f_size}) {
    if (s != 0 && s != vec * real_size) in.fail("a coordinate block does not match natoms");
  }
  if (h.box_size && h.box_size != 9 * real_size) in.fail("the box block is not 3x3");
  return h;
}

std::vector<double> read_block(XdrCursor& in, std::int32_t size, const Header& h) {
  std::vector<double> out;
  if (size == 0) return out;
  in.expect(static_cast<std::size_t>(size), "a coordinate block");  // before allocating it
  out.resize(static_cast<std::size_t>(h.natoms) * 3);
  for (double& v : out) v = in.real(h.is_double);
  return out;
}

TrrFrame read_frame(XdrCursor& in, Header& h) {
  TrrFrame f;
  f.step = h.step;
  f.double_precision = h.is_double;
  f.time_ps = in.real(h.is_double);
  (void)in.real(h.is_double);  // lambda
  in.skip(static_cast<std::size_t>(h.other_size), "an unused block");
  if (h.box_size) {
    structure::Box box{};
    for (double& v : box) v = in.real(h.is_double);
    f.box = box;
  }
  in.skip(static_cast<std::size_t>(h.vir_size) + h.pres_size, "the virial or pressure");
  f.positions = read_block(in, h.x_size, h);
  f.velocities = read_block(in, h.v_size, h);
  f.forces = read_block(in, h.f_size, h);
  return f;
}

std::vector<unsigned char> slurp(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw core::InputError(path.string() + ": cannot open TRR file");
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

void put_u32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xff));
}
void put_float(std::string& out, double v) {
  put_u32(out, std::bit_cast<std::uint32_t>(static_cast<float>(v)));
}

void put_frame(std::string& out, int n_atoms, const TrrFrame& f) {
  const auto vec = static_cast<std::uint32_t>(n_atoms) * 3;
  put_u32(out, static_cast<std::uint32_t>(kTrrMagic));
  put_u32(out, static_cast<std::uint32_t>(kTrrVersion.size() + 1));
  put_u32(out, static_cast<std::uint32_t>(kTrrVersion.size()));
  out.append(kTrrVersion);  // 12 bytes: already a multiple of 4
  const std::uint32_t sizes[] = {0,
                                 0,
                                 f.box ? 36u : 0u,
                                 0,
                                 0,
                                 0,
                                 0,
                                 f.positions.empty() ? 0 : vec * 4,
                                 f.velocities.empty() ? 0 : vec * 4,
                                 0};
  for (std::uint32_t s : sizes) put_u32(out, s);
  put_u32(out, static_cast<std::uint32_t>(n_atoms));
  put_u32(out, static_cast<std::uint32_t>(f.step));
  put_u32(out, 0);  // nre
  put_float(out, f.time_ps);
  put_float(out, 0.0);  // lambda
  if (f.box) {
    for (double v : *f.box) put_float(out, v);
  }
  for (const auto* block : {&f.positions, &f.velocities}) {
    for (double v : *block) put_float(out, v);
  }
}

}  // namespace

void write_trr(const std::filesystem::path& path, int n_atoms,
               const std::vector<TrrFrame>& frames) {
  std::string out;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const TrrFrame& f = frames[i];
    for (const auto* block : {&f.positions, &f.velocities}) {
      if (!block->empty() && block->size() != static_cast<std::size_t>(n_atoms) * 3) {
        throw core::InputError(path.string() + ": TRR frame " + std::to_string(i) + " has " +
                               std::to_string(block->size()) + " values, expected " +
                               std::to_string(n_atoms * 3));
      }
    }
    put_frame(out, n_atoms, f);
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(out.data(), static_cast<std::streamsize>(out.size()));
  if (!file.flush()) throw core::InputError(path.string() + ": cannot write TRR file");
}

TrrTrajectory read_trr(const std::filesystem::path& path, std::optional<int> n_atoms) {
  XdrCursor in(path, slurp(path));
  TrrTrajectory out;
  while (!in.at_end()) {
    in.set_frame(out.frames.size());
    Header h = read_header(in);
    if (out.frames.empty()) out.n_atoms = h.natoms;
    if (h.natoms != (n_atoms ? *n_atoms : out.n_atoms)) {
      in.fail("has " + std::to_string(h.natoms) + " atoms, expected " +
              std::to_string(n_atoms ? *n_atoms : out.n_atoms));
    }
    out.frames.push_back(read_frame(in, h));
  }
  if (out.frames.empty()) throw core::InputError(path.string() + ": empty TRR file (no frames)");
  return out;
}

}  // namespace trails::trajio
