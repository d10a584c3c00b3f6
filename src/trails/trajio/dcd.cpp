// CHARMM/NAMD DCD, as mdtraj, MDAnalysis and VMD read it: Fortran unformatted records with 32-bit
// markers. Block 1 (84 bytes): "CORD" and 20 ints (NSET, ISTART, NSAVC, NSTEP, ..., NAMNF at [8],
// DELTA as float at [9] in AKMA time units, unit-cell flag [10], 4D flag [11], CHARMM version
// [19]). Block 2: titles (80 characters each). Block 3: NATOM. Per frame: optional unit cell (6
// doubles A, gamma, B, beta, alpha, C; Å and degrees), then X, Y, Z blocks of NATOM floats in Å.
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <numbers>
#include <vector>

#include "trails/core/error.h"
#include "trails/core/units.h"
#include "trails/trajio/box_geometry.h"
#include "trails/trajio/formats.h"

namespace trails::trajio::detail {
namespace {

using core::kAngstromPerNm;

constexpr double kAkmaPs = 0.04888821;  // one AKMA time unit in ps (CHARMM's DELTA unit)
constexpr int kCharmmVersion = 24;

// std::byteswap is C++23.
std::uint32_t byteswap32(std::uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}
std::int32_t byteswap32(std::int32_t v) {
  return static_cast<std::int32_t>(byteswap32(static_cast<std::uint32_t>(v)));
}
std::uint64_t byteswap64(std::uint64_t v) {
  return (static_cast<std::uint64_t>(byteswap32(static_cast<std::uint32_t>(v))) << 32) |
         byteswap32(static_cast<std::uint32_t>(v >> 32));
}

// --- writing (native little-endian, as every x86 writer does) ---------------------------------

class DcdWriter final : public TrajectoryWriter {
 public:
  DcdWriter(const std::filesystem::path& path, int n_atoms, std::string title)
      : path_(path), n_atoms_(n_atoms), title_(std::move(title)) {
    title_.resize(80, ' ');
    file_ = std::fopen(path.c_str(), "wb");
    if (file_ == nullptr) {
      throw core::InputError(path.string() + ": cannot create DCD file: " + std::strerror(errno));
    }
    xyz_.resize(static_cast<std::size_t>(n_atoms));
  }
  ~DcdWriter() override {
    try {
      close();
    } catch (...) {  // destructors must not throw; close() explicitly to see errors
    }
  }

  void write(const TrajectoryFrame& frame) override {
    if (file_ == nullptr) throw core::UsageError(path_.string() + ": DCD writer already closed");
    if (frame.positions_nm.size() != 3 * static_cast<std::size_t>(n_atoms_)) {
      throw core::InputError(path_.string() + ": frame " + std::to_string(frames_) + " has " +
                             std::to_string(frame.positions_nm.size() / 3) + " atoms, file has " +
                             std::to_string(n_atoms_));
    }
    if (frames_ == 0) {
      has_cell_ = frame.box.has_value();
      first_step_ = frame.step;
      first_time_ps_ = frame.time_ps;
      write_header();
    } else if (frame.box.has_value() != has_cell_) {
      throw core::InputError(path_.string() + ": frame " + std::to_string(frames_) +
                             (has_cell_ ? " has no box but the first frame had one"
                                        : " has a box but the first frame had none") +
                             " (a DCD file either has a unit cell in every frame or in none)");
    }
    if (frames_ == 1) {
      // The second frame fixes the saving interval; DCD cannot store irregular spacing.
      const std::int64_t dstep = frame.step - first_step_;
      nsavc_ = dstep > 0 ? dstep : 1;
      delta_akma_ = (frame.time_ps - first_time_ps_) / static_cast<double>(nsavc_) / kAkmaPs;
    }
    if (has_cell_) {
      const LengthsAngles c = box_to_lengths_angles(*frame.box);
      const std::array<double, 6> cell{
          c.a_nm * kAngstromPerNm, c.gamma_deg, c.b_nm * kAngstromPerNm, c.beta_deg, c.alpha_deg,
          c.c_nm * kAngstromPerNm};
      record(cell.data(), sizeof cell);
    }
    for (int d = 0; d < 3; ++d) {
      for (int i = 0; i < n_atoms_; ++i) {
        xyz_[static_cast<std::size_t>(i)] = static_cast<float>(
            frame.positions_nm[3 * static_cast<std::size_t>(i) + d] * kAngstromPerNm);
      }
      record(xyz_.data(), xyz_.size() * sizeof(float));
    }
    ++frames_;
    // Keep NSET (and ISTART/NSAVC/DELTA) current so a file cut short by a crash stays readable.
    write_header();
    if (std::fseek(file_, 0, SEEK_END) != 0) fail("seek");
  }

  void close() override {
    if (file_ == nullptr) return;
    if (frames_ == 0) write_header();
    const bool ok = std::fflush(file_) == 0;
    const bool closed = std::fclose(file_) == 0;
    file_ = nullptr;
    if (!ok || !closed) throw core::InputError(path_.string() + ": cannot finish DCD file");
  }

  int n_atoms() const override { return n_atoms_; }
  std::int64_t frames_written() const override { return frames_; }

 private:
  [[noreturn]] void fail(const char* what) {
    throw core::InputError(path_.string() + ": DCD " + what + " failed: " + std::strerror(errno));
  }

  void raw(const void* data, std::size_t n) {
    if (std::fwrite(data, 1, n, file_) != n) fail("write");
  }
  void record(const void* data, std::size_t n) {
    const auto marker = static_cast<std::int32_t>(n);
    raw(&marker, 4);
    raw(data, n);
    raw(&marker, 4);
  }

  void write_header() {
    if (std::fseek(file_, 0, SEEK_SET) != 0) fail("seek");
    std::array<std::int32_t, 21> block{};  // "CORD" then icntrl[20]
    std::memcpy(&block[0], "CORD", 4);
    std::int32_t* icntrl = &block[1];
    icntrl[0] = static_cast<std::int32_t>(frames_);
    icntrl[1] = static_cast<std::int32_t>(first_step_);
    icntrl[2] = static_cast<std::int32_t>(nsavc_);
    icntrl[3] = static_cast<std::int32_t>(nsavc_ * frames_);
    const auto delta = static_cast<float>(delta_akma_);
    std::memcpy(&icntrl[9], &delta, 4);
    icntrl[10] = has_cell_ ? 1 : 0;
    icntrl[19] = kCharmmVersion;
    record(block.data(), sizeof block);
    std::array<char, 84> titles{};
    const std::int32_t ntitle = 1;
    std::memcpy(titles.data(), &ntitle, 4);
    std::memcpy(titles.data() + 4, title_.data(), 80);
    record(titles.data(), titles.size());
    const std::int32_t natom = n_atoms_;
    record(&natom, 4);
  }

  std::filesystem::path path_;
  int n_atoms_;
  std::string title_;
  std::FILE* file_ = nullptr;
  std::vector<float> xyz_;
  std::int64_t frames_ = 0;
  bool has_cell_ = false;
  std::int64_t first_step_ = 0;
  double first_time_ps_ = 0.0;
  std::int64_t nsavc_ = 1;
  double delta_akma_ = 0.0;
};

// --- reading (either endianness) -----------------------------------------------------------------

class DcdReader {
 public:
  explicit DcdReader(const std::filesystem::path& path) : path_(path) {
    in_.open(path, std::ios::binary);
    if (!in_) throw core::InputError(path.string() + ": cannot open DCD file");
    std::error_code ec;
    size_ = std::filesystem::file_size(path, ec);
    if (ec) throw core::InputError(path.string() + ": cannot stat DCD file: " + ec.message());
  }

  Trajectory read(std::optional<int> expect_atoms) {
    read_header();
    if (expect_atoms && *expect_atoms != n_atoms_) {
      throw core::InputError(path_.string() + ": DCD file has " + std::to_string(n_atoms_) +
                             " atoms, expected " + std::to_string(*expect_atoms));
    }
    const std::uint64_t frame_bytes =
        (has_cell_ ? 56u : 0u) + 3u * (8u + 4u * static_cast<std::uint64_t>(n_atoms_));
    const std::uint64_t body = size_ - header_bytes_;
    const std::uint64_t n_frames = body / frame_bytes;
    if (body % frame_bytes != 0) {
      throw core::InputError(path_.string() + ": DCD file is truncated: frame " +
                             std::to_string(n_frames) + " has only " +
                             std::to_string(body % frame_bytes) + " of " +
                             std::to_string(frame_bytes) + " bytes");
    }
    Trajectory out;
    out.n_atoms = n_atoms_;
    out.frames.resize(n_frames);
    // Sized only when a frame is there: the file's length then bounds the header's atom count
    // (a header-only file may claim any count: fuzz/corpus/dcd).
    std::vector<float> xyz(n_frames > 0 ? static_cast<std::size_t>(n_atoms_) : 0);
    for (std::uint64_t f = 0; f < n_frames; ++f) {
      TrajectoryFrame& fr = out.frames[f];
      const std::int64_t step = istart_ + static_cast<std::int64_t>(f) * nsavc_;
      fr.step = step;
      fr.time_ps = static_cast<double>(step) * delta_akma_ * kAkmaPs;
      if (has_cell_) {
        std::array<double, 6> uc{};
        record(uc.data(), sizeof uc, f, "unit cell");
        for (double& v : uc) v = swap_double(v);
        fr.box = cell_to_box(uc, f);
      }
      fr.positions_nm.resize(3 * static_cast<std::size_t>(n_atoms_));
      for (int d = 0; d < 3; ++d) {
        record(xyz.data(), xyz.size() * sizeof(float), f, "coordinate");
        for (int i = 0; i < n_atoms_; ++i) {
          fr.positions_nm[3 * static_cast<std::size_t>(i) + d] =
              static_cast<double>(swap_float(xyz[static_cast<std::size_t>(i)])) / kAngstromPerNm;
        }
      }
    }
    return out;
  }

 private:
  [[noreturn]] void bad(const std::string& what) {
    throw core::InputError(path_.string() + ": not a readable DCD file: " + what);
  }

  std::int32_t swap_int(std::int32_t v) const { return swapped_ ? byteswap32(v) : v; }
  float swap_float(float v) const {
    return swapped_ ? std::bit_cast<float>(byteswap32(std::bit_cast<std::uint32_t>(v))) : v;
  }
  double swap_double(double v) const {
    return swapped_ ? std::bit_cast<double>(byteswap64(std::bit_cast<std::uint64_t>(v))) : v;
  }

  void raw(void* data, std::size_t n, const std::string& where) {
    in_.read(static_cast<char*>(data), static_cast<std::streamsize>(n));
    if (static_cast<std::size_t>(in_.gcount()) != n) bad("file ends inside the " + where);
  }
  std::int32_t read_int(const std::string& where) {
    std::int32_t v = 0;
    raw(&v, 4, where);
    return swap_int(v);
  }

  // One Fortran record of exactly n bytes (frame-level errors name the frame).
  void record(void* data, std::size_t n, std::uint64_t frame, const char* what) {
    const std::string where = std::string(what) + " record of frame " + std::to_string(frame);
    const std::int32_t head = read_int(where);
    raw(data, n, where);
    const std::int32_t tail = read_int(where);
    if (head != static_cast<std::int32_t>(n) || tail != head) {
      throw core::InputError(path_.string() + ": DCD " + where + " has record markers " +
                             std::to_string(head) + "/" + std::to_string(tail) + ", expected " +
                             std::to_string(n));
    }
  }

  void read_header() {
    std::int32_t first = 0;
    raw(&first, 4, "header");
    if (first == 84) {
      swapped_ = false;
    } else if (byteswap32(first) == 84) {
      swapped_ = true;
    } else if (first == 0 || byteswap32(first) == 0) {
      bad("the header uses 64-bit record markers, which Trails does not read");
    } else {
      bad("the first record marker is not 84 (in either byte order)");
    }
    std::array<char, 84> block{};
    raw(block.data(), block.size(), "header");
    if (std::memcmp(block.data(), "CORD", 4) != 0) bad("the header does not start with 'CORD'");
    if (read_int("header") != 84) bad("the header record's end marker is not 84");
    std::array<std::int32_t, 20> icntrl{};
    std::memcpy(icntrl.data(), block.data() + 4, sizeof icntrl);
    for (auto& v : icntrl) v = swap_int(v);
    istart_ = icntrl[1];
    nsavc_ = icntrl[2] > 0 ? icntrl[2] : 1;
    const bool charmm = icntrl[19] != 0;
    if (charmm) {
      float delta = 0;
      std::memcpy(&delta, block.data() + 4 + 9 * 4, 4);
      delta_akma_ = swap_float(delta);
      has_cell_ = icntrl[10] != 0;
      if (icntrl[11] != 0) bad("the file has a fourth (4D) coordinate block, not supported");
    } else {  // X-PLOR: DELTA is a double over icntrl[9..10], no unit cell
      double delta = 0;
      std::memcpy(&delta, block.data() + 4 + 9 * 4, 8);
      delta_akma_ = swap_double(delta);
    }
    if (icntrl[8] != 0) {
      bad(std::to_string(icntrl[8]) +
          " fixed atoms (NAMNF); DCD files with fixed atoms are not "
          "supported");
    }
    // Title block: ntitle then ntitle lines of 80 characters.
    const std::int32_t title_len = read_int("title block");
    if (title_len < 4 || (title_len - 4) % 80 != 0) bad("the title block has an invalid length");
    in_.seekg(title_len, std::ios::cur);
    if (read_int("title block") != title_len) bad("the title block's end marker does not match");
    if (read_int("atom count") != 4) bad("the atom count record marker is not 4");
    n_atoms_ = read_int("atom count");
    if (read_int("atom count") != 4) bad("the atom count record's end marker is not 4");
    if (n_atoms_ < 1) bad("the atom count is " + std::to_string(n_atoms_));
    header_bytes_ = static_cast<std::uint64_t>(in_.tellg());
  }

  // CHARMM order A, gamma, B, beta, alpha, C in Å. Angles are degrees (CHARMM, MDAnalysis) or,
  // when all three lie in [-1, 1], cosines (VMD/NAMD); the same rule VMD's reader applies.
  std::optional<structure::Box> cell_to_box(const std::array<double, 6>& uc, std::uint64_t frame) {
    LengthsAngles c;
    c.a_nm = uc[0] / kAngstromPerNm;
    c.b_nm = uc[2] / kAngstromPerNm;
    c.c_nm = uc[5] / kAngstromPerNm;
    if (c.a_nm == 0 && c.b_nm == 0 && c.c_nm == 0) return std::nullopt;  // NAMD: no periodic cell
    double alpha = uc[4], beta = uc[3], gamma = uc[1];
    auto is_cos = [](double v) { return v >= -1.0 && v <= 1.0; };
    if (is_cos(alpha) && is_cos(beta) && is_cos(gamma)) {
      auto deg = [](double cosine) { return std::acos(cosine) * 180.0 / std::numbers::pi; };
      alpha = deg(alpha);
      beta = deg(beta);
      gamma = deg(gamma);
    }
    c.alpha_deg = alpha;
    c.beta_deg = beta;
    c.gamma_deg = gamma;
    try {
      return box_from_lengths_angles(c);
    } catch (const core::InputError& e) {
      throw core::InputError(path_.string() + ": DCD unit cell of frame " + std::to_string(frame) +
                             ": " + e.what());
    }
  }

  std::filesystem::path path_;
  std::ifstream in_;
  std::uint64_t size_ = 0;
  std::uint64_t header_bytes_ = 0;
  bool swapped_ = false;
  bool has_cell_ = false;
  int n_atoms_ = 0;
  std::int64_t istart_ = 0;
  std::int64_t nsavc_ = 1;
  double delta_akma_ = 0.0;
};

}  // namespace

std::unique_ptr<TrajectoryWriter> open_dcd_writer(const std::filesystem::path& path, int n_atoms,
                                                  const std::string& title) {
  return std::make_unique<DcdWriter>(path, n_atoms, title);
}

Trajectory read_dcd(const std::filesystem::path& path, std::optional<int> n_atoms) {
  return DcdReader(path).read(n_atoms);
}

}  // namespace trails::trajio::detail
