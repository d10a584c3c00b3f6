// XTC through libgromacs' legacy trxio API (GROMACS 2022, mixed precision: `real` is float).
// GROMACS ends the process (gmx_fatal) on some malformed input — a wrong magic number, a file it
// cannot open — so every file is first checked here: the writer creates the file itself, and the
// reader walks every frame header (magic 1995, atom counts, compressed byte counts against the file
// size) before libgromacs decodes anything. The compressed payload itself is trusted to GROMACS's
// decoder, which reports inconsistent data as a failed frame.
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <mutex>
#include <vector>

#include <gromacs/fileio/oenv.h>
#include <gromacs/fileio/trxio.h>
#include <gromacs/trajectory/trajectoryframe.h>

#include "trails/core/error.h"
#include "trails/trajio/formats.h"

namespace trails::trajio::detail {
namespace {

static_assert(sizeof(real) == sizeof(float), "Trails expects mixed-precision libgromacs");

constexpr std::int32_t kXtcMagic = 1995;
constexpr int kXtcMaxSmallIdx = 73;  // size of the xdr3dfcoord magicints table

// libgromacs keeps global file tables; Trails serializes its own calls into it.
std::mutex& gromacs_mutex() {
  static std::mutex m;
  return m;
}

struct OutputEnv {
  gmx_output_env_t* env = nullptr;
  OutputEnv() { output_env_init_default(&env); }
  ~OutputEnv() { output_env_done(env); }
  OutputEnv(const OutputEnv&) = delete;
  OutputEnv& operator=(const OutputEnv&) = delete;
};

class XtcWriter final : public TrajectoryWriter {
 public:
  XtcWriter(const std::filesystem::path& path, int n_atoms, double precision)
      : path_(path), n_atoms_(n_atoms), precision_(precision) {
    if (!(precision > 0) || !std::isfinite(precision)) {
      throw core::InputError(path.string() + ": XTC precision must be positive (got " +
                             std::to_string(precision) + ")");
    }
    {  // create it ourselves: libgromacs would end the process if it could not
      std::ofstream probe(path, std::ios::binary | std::ios::trunc);
      if (!probe) {
        throw core::InputError(path.string() + ": cannot create XTC file: " + std::strerror(errno));
      }
    }
    std::lock_guard lock(gromacs_mutex());
    status_ = open_trx(path.c_str(), "w");
    if (status_ == nullptr) throw core::InputError(path.string() + ": cannot open XTC file");
    x_.resize(3 * static_cast<std::size_t>(n_atoms));
  }
  ~XtcWriter() override {
    try {
      close();
    } catch (...) {  // destructors must not throw; close() explicitly to see errors
    }
  }

  void write(const TrajectoryFrame& frame) override {
    if (status_ == nullptr) throw core::UsageError(path_.string() + ": XTC writer already closed");
    if (frame.positions_nm.size() != x_.size()) {
      throw core::InputError(path_.string() + ": frame " + std::to_string(frames_) + " has " +
                             std::to_string(frame.positions_nm.size() / 3) + " atoms, file has " +
                             std::to_string(n_atoms_));
    }
    if (frame.step < std::numeric_limits<std::int32_t>::min() ||
        frame.step > std::numeric_limits<std::int32_t>::max()) {
      throw core::InputError(path_.string() + ": frame " + std::to_string(frames_) + " step " +
                             std::to_string(frame.step) + " does not fit XTC's 32-bit step field");
    }
    // XTC packs coordinates as integers of 1/precision nm; beyond ~2^31/precision they overflow.
    const double limit = 2.0e9 / precision_;
    for (std::size_t i = 0; i < x_.size(); ++i) {
      const double v = frame.positions_nm[i];
      if (!std::isfinite(v) || std::abs(v) > limit) {
        throw core::InputError(path_.string() + ": frame " + std::to_string(frames_) + " atom " +
                               std::to_string(i / 3) + " coordinate " + std::to_string(v) +
                               " nm cannot be stored in XTC at precision " +
                               std::to_string(precision_));
      }
      x_[i] = static_cast<float>(v);
    }
    t_trxframe fr;
    clear_trxframe(&fr, TRUE);
    fr.natoms = n_atoms_;
    fr.bX = TRUE;
    fr.x = reinterpret_cast<rvec*>(x_.data());
    fr.bStep = TRUE;
    fr.step = frame.step;
    fr.bTime = TRUE;
    fr.time = static_cast<real>(frame.time_ps);
    fr.bPrec = TRUE;
    fr.prec = static_cast<real>(precision_);
    fr.bBox = TRUE;  // XTC always stores a box; zeros mean "none"
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) {
        fr.box[r][c] = frame.box ? static_cast<real>((*frame.box)[3 * r + c]) : 0.0f;
      }
    }
    int rc = 0;
    {
      std::lock_guard lock(gromacs_mutex());
      rc = write_trxframe(status_, &fr, nullptr);
    }
    if (rc != 0) {
      throw core::InputError(path_.string() + ": writing XTC frame " + std::to_string(frames_) +
                             " failed");
    }
    ++frames_;
  }

  void close() override {
    if (status_ == nullptr) return;
    std::lock_guard lock(gromacs_mutex());
    close_trx(status_);
    status_ = nullptr;
  }

  int n_atoms() const override { return n_atoms_; }
  std::int64_t frames_written() const override { return frames_; }

 private:
  std::filesystem::path path_;
  int n_atoms_;
  double precision_;
  t_trxstatus* status_ = nullptr;
  std::vector<float> x_;
  std::int64_t frames_ = 0;
};

// Walks the XDR frame headers without decoding coordinates. Returns the frame count and atom
// count; throws InputError naming the file and frame for anything GROMACS would abort on.
struct XtcLayout {
  int n_atoms = 0;
  std::int64_t n_frames = 0;
};

XtcLayout scan_xtc(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::InputError(path.string() + ": cannot open XTC file");
  std::error_code ec;
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw core::InputError(path.string() + ": cannot stat XTC file: " + ec.message());
  XtcLayout layout;
  std::uint64_t offset = 0;
  auto fail = [&](const std::string& what) -> core::InputError {
    return core::InputError(path.string() + ": not a readable XTC file: frame " +
                            std::to_string(layout.n_frames) + " (byte offset " +
                            std::to_string(offset) + ") " + what);
  };
  auto read_ints = [&](std::int32_t* out, int n) {
    std::array<unsigned char, 4 * 16> buf{};
    in.read(reinterpret_cast<char*>(buf.data()), 4 * n);
    if (in.gcount() != 4 * n) throw fail("is truncated");
    for (int i = 0; i < n; ++i) {  // XDR is big-endian
      const unsigned char* b = &buf[4 * static_cast<std::size_t>(i)];
      out[i] = static_cast<std::int32_t>((std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) |
                                         (std::uint32_t{b[2]} << 8) | std::uint32_t{b[3]});
    }
  };
  while (offset < size) {
    std::array<std::int32_t, 14> head{};  // magic natoms step time box[9] natoms
    read_ints(head.data(), 14);
    if (head[0] != kXtcMagic) {
      throw fail("has magic number " + std::to_string(head[0]) + ", expected " +
                 std::to_string(kXtcMagic));
    }
    if (head[1] < 1 || head[13] != head[1]) throw fail("has an invalid atom count");
    if (layout.n_frames == 0) {
      layout.n_atoms = head[1];
    } else if (head[1] != layout.n_atoms) {
      throw fail("has " + std::to_string(head[1]) + " atoms, frame 0 had " +
                 std::to_string(layout.n_atoms));
    }
    std::uint64_t frame_bytes = 14 * 4;
    if (head[1] <= 9) {  // small systems are stored as plain floats
      frame_bytes += 12u * static_cast<std::uint64_t>(head[1]);
    } else {
      std::array<std::int32_t, 9> packed{};  // precision minint[3] maxint[3] smallidx nbytes
      read_ints(packed.data(), 9);
      const std::int32_t smallidx = packed[7], nbytes = packed[8];
      if (smallidx < 0 || smallidx >= kXtcMaxSmallIdx) throw fail("has a corrupt header");
      for (int d = 0; d < 3; ++d) {
        if (packed[1 + d] > packed[4 + d]) throw fail("has a corrupt header");
      }
      if (nbytes < 0) throw fail("has a negative compressed size");
      // Every atom takes at least a bit of the compressed data; GROMACS' decoder allocates the
      // frame from the atom count, so a header that claims more is refused here
      // (fuzz/corpus/xtc).
      if (static_cast<std::uint64_t>(head[1]) > 8 * static_cast<std::uint64_t>(nbytes)) {
        throw fail("has more atoms than its compressed data can hold");
      }
      frame_bytes += 9 * 4 + ((static_cast<std::uint64_t>(nbytes) + 3) / 4) * 4;
    }
    if (offset + frame_bytes > size) throw fail("is truncated");
    offset += frame_bytes;
    in.seekg(static_cast<std::streamoff>(offset));
    ++layout.n_frames;
  }
  if (layout.n_frames == 0) throw core::InputError(path.string() + ": XTC file has no frames");
  return layout;
}

}  // namespace

std::unique_ptr<TrajectoryWriter> open_xtc_writer(const std::filesystem::path& path, int n_atoms,
                                                  double precision) {
  return std::make_unique<XtcWriter>(path, n_atoms, precision);
}

Trajectory read_xtc(const std::filesystem::path& path, std::optional<int> n_atoms) {
  const XtcLayout layout = scan_xtc(path);
  if (n_atoms && *n_atoms != layout.n_atoms) {
    throw core::InputError(path.string() + ": XTC file has " + std::to_string(layout.n_atoms) +
                           " atoms, expected " + std::to_string(*n_atoms));
  }
  Trajectory out;
  out.n_atoms = layout.n_atoms;
  out.frames.reserve(static_cast<std::size_t>(layout.n_frames));

  std::lock_guard lock(gromacs_mutex());
  OutputEnv oenv;
  t_trxstatus* status = nullptr;
  t_trxframe fr;
  clear_trxframe(&fr, TRUE);
  bool more = read_first_frame(oenv.env, &status, path.c_str(), &fr, TRX_NEED_X);
  while (more) {
    if (fr.not_ok != 0 || !fr.bX || fr.natoms != layout.n_atoms) break;
    TrajectoryFrame f;
    f.step = fr.step;
    f.time_ps = fr.time;
    f.positions_nm.resize(3 * static_cast<std::size_t>(fr.natoms));
    for (int i = 0; i < fr.natoms; ++i) {
      for (int d = 0; d < 3; ++d) f.positions_nm[3 * static_cast<std::size_t>(i) + d] = fr.x[i][d];
    }
    structure::Box box{};
    bool any = false;
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) {
        box[3 * static_cast<std::size_t>(r) + static_cast<std::size_t>(c)] = fr.box[r][c];
        any = any || fr.box[r][c] != 0.0f;
      }
    }
    if (any) f.box = box;
    out.frames.push_back(std::move(f));
    // Stop at the scanned frame count: at end of file read_next_frame prints to stderr.
    if (static_cast<std::int64_t>(out.frames.size()) == layout.n_frames) break;
    more = read_next_frame(oenv.env, status, &fr);
  }
  if (status != nullptr) close_trx(status);
  done_frame(&fr);
  if (static_cast<std::int64_t>(out.frames.size()) != layout.n_frames) {
    throw core::InputError(path.string() + ": XTC frame " + std::to_string(out.frames.size()) +
                           " could not be decoded (corrupt compressed coordinates)");
  }
  return out;
}

}  // namespace trails::trajio::detail
