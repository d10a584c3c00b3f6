// Writes an iteration's H5MD shard to its temporary file in two steps (ShardBuilder, shard.h):
// positions appended as the walkers' results arrive, in walker order, then the rest at commit.
// Small shards are built in memory and written at once; large ones are written by HDF5
// straight to the file, so the coordinates are never held twice. Object timestamps are off
// and the calls depend on the record only, so the bytes (and so the ledger checksum) do too:
// a resumed run rewrites an iteration bit for bit (docs/file-formats.md, "When a shard is
// written"). What the shard holds is written by shard_contents.h, through h5_writer.h.
#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "trails/core/error.h"
#include "trails/core/fs.h"
#include "trails/store/h5_writer.h"
#include "trails/store/run_store.h"
#include "trails/store/shard.h"
#include "trails/store/shard_contents.h"
#include "trails/store/shard_grid.h"
#include "trails/store/shard_io.h"

namespace trails::store::detail {
namespace {

// Shards up to this size (4 MiB) are built in memory and written at once; larger ones by
// HDF5 straight to the file, so the coordinates are never held twice.
constexpr std::size_t kImageLimitBytes = std::size_t{4} << 20;

// A shard image this small or smaller (4 MiB) is built in memory and written at once.
std::size_t shard_estimate_bytes(const ShardLayout& layout) {
  const auto atom_values =
      static_cast<std::size_t>(layout.n_atoms) * static_cast<std::size_t>(layout.spatial_dim);
  const auto frames = static_cast<std::size_t>(layout.expected_frames);
  const auto values = frames * (atom_values + static_cast<std::size_t>(layout.cv_dim) + 9) +
                      static_cast<std::size_t>(layout.expected_states) * atom_values * 2;
  return values * sizeof(double) + (std::size_t{64} << 10);
}

}  // namespace

struct ShardBuilder::Impl {
  std::filesystem::path path;
  ShardLayout layout;
  H5Context h;
  bool in_memory = false;
  H5Handle file, particles, walkers, position, value;
  std::optional<H5Writer> w;
  hsize_t frames = 0;
  std::vector<std::int64_t> grid_row;  // the last appended row's grid indices (quantised)
  bool finished = false;
};

ShardBuilder::ShardBuilder(const std::filesystem::path& path, const ShardLayout& layout)
    : impl_(std::make_unique<Impl>()) {
  Impl& s = *impl_;
  s.path = path;
  s.layout = layout;
  s.h = H5Context{path.string(), core::ErrorKind::Store};
  TRAILS_CHECK(layout.n_atoms >= 0 && layout.spatial_dim >= 0, "negative shard dimension");
  TRAILS_CHECK(layout.policy.atoms.empty() || layout.policy.atoms.back() < layout.n_atoms,
               "record selection names an atom past n_atoms");
  H5Quiet quiet;
  const H5Context& h = s.h;
  H5Handle fcpl = h.own(H5Pcreate(H5P_FILE_CREATE), H5Pclose, "file creation list");
  h.check(H5Pset_obj_track_times(fcpl.get(), 0), "file creation list");
  const std::size_t estimate = shard_estimate_bytes(layout);
  s.in_memory = estimate <= kImageLimitBytes;
  if (s.in_memory) {
    // HDF5 writing a small file itself issues a few hundred small writes and reads, which
    // dominate a small iteration's commit: build it in memory, write it with one write().
    H5Handle fapl = h.own(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "file access list");
    h.check(H5Pset_fapl_core(fapl.get(), estimate, 0), "core driver");
    s.file = h.own(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()), H5Fclose,
                   "cannot create the in-memory shard");
  } else {
    s.file = h.own(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, fcpl.get(), H5P_DEFAULT), H5Fclose,
                   "cannot create the shard file");
  }
  s.w.emplace(H5Writer{h, h.own(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, "group property list")});
  h.check(H5Pset_obj_track_times(s.w->ocpl.get(), 0), "group property list");
  s.particles = s.w->group(s.file.get(), "particles");
  s.walkers = s.w->group(s.particles.get(), "walkers");
  s.position = s.w->group(s.walkers.get(), "position");
  // A record without coordinates (features only) gets its empty positions at finish(): HDF5
  // cannot chunk, and so cannot extend, a zero-sized row.
  if (layout.n_atoms * layout.spatial_dim > 0) s.value = create_positions(s, 0);
}

H5Handle ShardBuilder::create_positions(Impl& s, std::int64_t frames) {
  const auto kept = static_cast<hsize_t>(
      s.layout.policy.atoms.empty() ? s.layout.n_atoms : s.layout.policy.atoms.size());
  const std::vector<hsize_t> dims{static_cast<hsize_t>(frames), kept,
                                  static_cast<hsize_t>(s.layout.spatial_dim)};
  const auto rows_hint = static_cast<hsize_t>(std::max<std::int64_t>(s.layout.expected_frames, 0));
  if (s.layout.policy.quantised()) {  // one chunk per group of rows (shard_grid.h)
    return s.w->dataset(s.position.get(), "value", H5T_STD_U32LE, H5T_NATIVE_UINT32, dims,
                        sizeof(std::uint32_t), nullptr, true, rows_hint,
                        static_cast<hsize_t>(kGridGroupRows));
  }
  const bool f32 = s.layout.policy.float32;
  return s.w->dataset(s.position.get(), "value", f32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE,
                      H5T_NATIVE_DOUBLE, dims, f32 ? sizeof(float) : sizeof(double), nullptr, true,
                      rows_hint);
}

ShardBuilder::~ShardBuilder() {
  if (!impl_) return;
  const bool remove = !impl_->finished;
  const auto path = impl_->path;
  {
    H5Quiet quiet;
    impl_.reset();  // closes every handle (an unfinished in-memory file writes nothing)
  }
  if (remove) {
    std::error_code ec;
    std::filesystem::remove(path, ec);  // an abandoned shard leaves no temporary behind
  }
}

void ShardBuilder::append(std::span<const double> positions) {
  Impl& s = *impl_;
  TRAILS_CHECK(!s.finished, "append to a finished shard");
  if (s.value.get() < 0) {
    TRAILS_CHECK(positions.empty(), "a shard without atoms takes no positions");
    return;
  }
  H5Quiet quiet;
  append_positions(s.h, s.value.get(), s.layout, s.frames, positions, s.grid_row);
  s.frames += positions.size() / static_cast<std::size_t>(s.layout.n_atoms * s.layout.spatial_dim);
}

std::int64_t ShardBuilder::frames() const { return static_cast<std::int64_t>(impl_->frames); }

ShardFile ShardBuilder::finish(const IterationRecord& record) {
  Impl& s = *impl_;
  TRAILS_CHECK(!s.finished, "a shard is finished once");
  H5Quiet quiet;
  if (s.value.get() < 0) {  // no atoms: every frame has an empty row
    s.value = create_positions(s, record.n_frames());
    s.frames = static_cast<hsize_t>(record.n_frames());
  }
  TRAILS_CHECK(record.n_frames() == frames() && record.n_atoms == s.layout.n_atoms &&
                   record.spatial_dim == s.layout.spatial_dim &&
                   record.record_policy.atoms == s.layout.policy.atoms &&
                   record.record_policy.float32 == s.layout.policy.float32 &&
                   record.record_policy.position_precision == s.layout.policy.position_precision,
               "the record matches the frames and layout its shard was built with");
  const H5Context& h = s.h;
  write_contents(*s.w, s.file.get(), s.walkers.get(), s.position.get(), record);
  s.value.reset();
  s.position.reset();
  s.walkers.reset();
  s.particles.reset();
  s.w.reset();
  h.check(H5Fflush(s.file.get(), H5F_SCOPE_GLOBAL), "flush");
  ShardFile out;
  if (s.in_memory) {
    const ssize_t size = H5Fget_file_image(s.file.get(), nullptr, 0);
    if (size < 0) h.fail("cannot size the shard image");
    std::vector<std::byte> image(static_cast<std::size_t>(size));
    if (H5Fget_file_image(s.file.get(), image.data(), image.size()) != size) {
      h.fail("cannot copy the shard image");
    }
    s.file.reset();
    write_file_synced(s.path, image);
    out = {static_cast<std::int64_t>(image.size()), shard_checksum(image)};
  } else {
    s.file.reset();  // closed: HDF5 has written everything
    core::fsync_file(s.path);
    const auto sum = checksum_file(s.path);  // streamed back from the page cache
    out = {sum.bytes, sum.checksum};
  }
  s.finished = true;
  return out;
}

ShardLayout shard_layout_of(const IterationRecord& record) {
  ShardLayout layout;
  layout.n_atoms = record.n_atoms;
  layout.spatial_dim = record.spatial_dim;
  layout.policy = record.record_policy;
  layout.expected_frames = record.n_frames();
  layout.expected_states = static_cast<std::int64_t>(record.final_states.size());
  layout.cv_dim = record.cv_dim;
  return layout;
}

ShardFile write_shard_file(const std::filesystem::path& path, const IterationRecord& record) {
  ShardBuilder builder(path, shard_layout_of(record));
  builder.append(record.positions);
  return builder.finish(record);
}

}  // namespace trails::store::detail