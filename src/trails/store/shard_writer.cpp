// Writes an iteration's H5MD shard to its temporary file in two steps (ShardBuilder, shard.h):
// positions appended as the walkers' results arrive, in walker order, then the rest at commit.
// Small shards are built in memory and written at once; large ones are written by HDF5
// straight to the file, so the coordinates are never held twice. Object timestamps are off
// and the calls depend on the record only, so the bytes (and so the ledger checksum) do too:
// a resumed run rewrites an iteration bit for bit (docs/file-formats.md, "When a shard is
// written").
#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "trails/core/error.h"
#include "trails/core/fs.h"
#include "trails/store/run_store.h"
#include "trails/store/shard.h"
#include "trails/store/shard_io.h"

namespace trails::store::detail {
namespace {

constexpr std::size_t kChunkBytes =
    std::size_t{32} * 1024;            // a few frames per chunk: cheap single-frame reads
constexpr unsigned kDeflateLevel = 1;  // coordinates compress little: favour speed
// Shards up to this size (4 MiB) are built in memory and written at once; larger ones by
// HDF5 straight to the file, so the coordinates are never held twice.
constexpr std::size_t kImageLimitBytes = std::size_t{4} << 20;

struct Writer {
  const H5Context& h;
  H5Handle ocpl;  // group creation list without timestamps

  H5Handle group(hid_t parent, const char* name) const {
    return h.own(H5Gcreate2(parent, name, H5P_DEFAULT, ocpl.get(), H5P_DEFAULT), H5Gclose, name);
  }

  void attr(hid_t obj, const char* name, hid_t file_type, hid_t mem_type, const void* data,
            hsize_t n, bool scalar) const {
    H5Handle space =
        h.own(scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr), H5Sclose, name);
    H5Handle a = h.own(H5Acreate2(obj, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                       H5Aclose, name);
    h.check(H5Awrite(a.get(), mem_type, data), name);
  }
  void attr_int(hid_t obj, const char* name, std::int64_t v) const {
    attr(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v, 1, true);
  }
  void attr_double(hid_t obj, const char* name, double v) const {
    attr(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v, 1, true);
  }
  // Fixed-length, NUL-terminated ASCII strings (scalar when `scalar`, else one per entry).
  void attr_strings(hid_t obj, const char* name, const std::vector<std::string>& values,
                    bool scalar) const {
    std::size_t width = 1;
    for (const auto& v : values) {
      width = std::max(width, v.size() + 1);
    }
    std::vector<char> packed(width * values.size(), '\0');
    for (std::size_t i = 0; i < values.size(); ++i) {
      std::copy(values[i].begin(), values[i].end(), packed.data() + i * width);
    }
    H5Handle type = h.own(H5Tcopy(H5T_C_S1), H5Tclose, name);
    h.check(H5Tset_size(type.get(), width), name);
    h.check(H5Tset_strpad(type.get(), H5T_STR_NULLTERM), name);
    attr(obj, name, type.get(), type.get(), packed.data(), values.size(), scalar);
  }

  // A time-dependent H5MD array: first dimension [variable] (unlimited), chunked, and
  // shuffled+deflated when `compress`; contiguous when a row has no elements (HDF5 cannot
  // chunk a zero extent).
  // `rows_hint`: the rows expected when the dataset starts empty and is extended (chunking).
  H5Handle dataset(hid_t parent, const char* name, hid_t file_type, hid_t mem_type,
                   std::vector<hsize_t> dims, std::size_t elem_bytes, const void* data,
                   bool compress, hsize_t rows_hint = 0) const {
    std::size_t row_elems = 1;
    for (std::size_t i = 1; i < dims.size(); ++i) {
      row_elems *= dims[i];
    }
    H5Handle dcpl = h.own(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, name);
    h.check(H5Pset_obj_track_times(dcpl.get(), 0), name);
    h.check(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER), name);
    std::vector<hsize_t> maxdims = dims;
    if (row_elems > 0) {
      std::vector<hsize_t> chunk = dims;
      const std::size_t rows = kChunkBytes / std::max<std::size_t>(1, row_elems * elem_bytes);
      chunk[0] = std::clamp<hsize_t>(rows, 1, std::max<hsize_t>(std::max(dims[0], rows_hint), 1));
      maxdims[0] = H5S_UNLIMITED;
      h.check(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()), name);
      if (compress) {
        h.check(H5Pset_shuffle(dcpl.get()), name);
        h.check(H5Pset_deflate(dcpl.get(), kDeflateLevel), name);
      }
    }
    H5Handle space =
        h.own(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), maxdims.data()),
              H5Sclose, name);
    H5Handle d = h.own(
        H5Dcreate2(parent, name, file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
        H5Dclose, name);
    if (data != nullptr && dims[0] * row_elems > 0) {
      h.check(H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
    }
    return d;
  }
};

// Appends whole frames of the full system to the H5MD positions dataset `d` (holding `first`
// frames) under the record policy: the kept atoms only, as float64 or float32 (HDF5 rounds to
// nearest on the write). A selection is gathered a block of frames at a time, so no second
// full copy of the coordinates is made.
void append_positions(const H5Context& h, hid_t d, const ShardLayout& layout, hsize_t first,
                      std::span<const double> positions) {
  const auto& policy = layout.policy;
  const auto dim = static_cast<hsize_t>(layout.spatial_dim);
  const bool all_atoms = policy.atoms.empty();
  const auto kept = static_cast<hsize_t>(all_atoms ? layout.n_atoms : policy.atoms.size());
  const auto frame_values = static_cast<std::size_t>(layout.n_atoms) * dim;
  TRAILS_CHECK(frame_values > 0 && positions.size() % frame_values == 0,
               "appended positions are whole frames of n_atoms x spatial_dim");
  const hsize_t frames = positions.size() / frame_values;
  if (frames == 0) return;
  const std::array<hsize_t, 3> extent{first + frames, kept, dim};
  h.check(H5Dset_extent(d, extent.data()), "positions extent");
  const auto write_block = [&](hsize_t f0, hsize_t nf, const double* data) {
    const std::array<hsize_t, 3> start{first + f0, 0, 0};
    const std::array<hsize_t, 3> count{nf, kept, dim};
    H5Handle file_space = h.own(H5Dget_space(d), H5Sclose, "positions");
    h.check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr,
                                count.data(), nullptr),
            "positions block");
    H5Handle mem_space = h.own(H5Screate_simple(3, count.data(), nullptr), H5Sclose, "block");
    h.check(H5Dwrite(d, H5T_NATIVE_DOUBLE, mem_space.get(), file_space.get(), H5P_DEFAULT, data),
            "positions block");
  };
  if (all_atoms) {
    write_block(0, frames, positions.data());
    return;
  }
  const hsize_t block = std::max<hsize_t>(1, (hsize_t{1} << 20) / (kept * dim * sizeof(double)));
  std::vector<double> buffer;
  for (hsize_t f0 = 0; f0 < frames; f0 += block) {
    const hsize_t nf = std::min(block, frames - f0);
    buffer.clear();
    for (hsize_t f = f0; f < f0 + nf; ++f) {
      const double* frame = positions.data() + f * frame_values;
      for (const int a : policy.atoms) {
        buffer.insert(buffer.end(), frame + static_cast<std::size_t>(a) * dim,
                      frame + (static_cast<std::size_t>(a) + 1) * dim);
      }
    }
    write_block(f0, nf, buffer.data());
  }
}

// /trails/record_policy: precision attribute, and atoms (indices into the full system) when
// the positions hold a selection.
void write_record_policy(const Writer& w, hid_t trails, const IterationRecord& r) {
  H5Handle g = w.group(trails, "record_policy");
  w.attr_strings(g.get(), "precision", {r.record_policy.float32 ? "float32" : "float64"}, true);
  w.attr_int(g.get(), "n_atoms", r.n_atoms);
  if (!r.record_policy.atoms.empty()) {
    std::vector<std::int64_t> atoms(r.record_policy.atoms.begin(), r.record_policy.atoms.end());
    w.dataset(g.get(), "atoms", H5T_STD_I64LE, H5T_NATIVE_INT64, {atoms.size()},
              sizeof(std::int64_t), atoms.data(), true);
  }
}

// /trails/final_state (each ok walker's state after its last step, indexed by walker) or
// /trails/spawn_starts (the next iteration's start configurations, indexed by slot): full
// float64 whatever the record policy, outside /particles so H5MD readers see only frames.
void write_states(const Writer& w, hid_t trails, const char* name, const char* index_name,
                  const IterationRecord& r, const std::vector<FinalState>& states) {
  const auto n = static_cast<hsize_t>(states.size());
  const auto atoms = static_cast<hsize_t>(r.n_atoms);
  const auto dim = static_cast<hsize_t>(r.spatial_dim);
  const auto values = static_cast<std::size_t>(atoms * dim);
  const bool velocities = n > 0 && !states.front().velocities.empty();
  const bool boxes = n > 0 && !states.front().box.empty();
  std::vector<std::int64_t> walker;
  std::vector<double> x, v, b;
  for (const auto& s : states) {
    TRAILS_CHECK(s.positions.size() == values && s.velocities.size() == (velocities ? values : 0) &&
                     s.box.size() == (boxes ? 9u : 0u),
                 "final states hold n_atoms x spatial_dim positions, and velocities and a box "
                 "for all walkers or for none");
    walker.push_back(s.walker);
    x.insert(x.end(), s.positions.begin(), s.positions.end());
    v.insert(v.end(), s.velocities.begin(), s.velocities.end());
    b.insert(b.end(), s.box.begin(), s.box.end());
  }
  H5Handle g = w.group(trails, name);
  w.dataset(g.get(), index_name, H5T_STD_I64LE, H5T_NATIVE_INT64, {n}, sizeof(std::int64_t),
            walker.data(), false);
  w.dataset(g.get(), "positions", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {n, atoms, dim},
            sizeof(double), x.data(), false);
  if (velocities) {
    w.dataset(g.get(), "velocities", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {n, atoms, dim},
              sizeof(double), v.data(), false);
  }
  if (boxes) {
    w.dataset(g.get(), "box", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {n, 3, 3}, sizeof(double),
              b.data(), false);
  }
}

// Everything but the positions: H5MD metadata, step/time, boxes, observables, parameters and
// /trails, into the file whose /particles/walkers/position/value the builder has filled.
void write_contents(const Writer& w, hid_t file, hid_t walkers, hid_t position,
                    const IterationRecord& r) {
  const H5Context& h = w.h;
  const auto frames = static_cast<hsize_t>(r.n_frames());

  // Per-row walker, frame, step and time (rows are ok walkers' frames in walker order).
  std::vector<std::int64_t> walker, frame, step;
  std::vector<double> time;
  walker.reserve(frames), frame.reserve(frames), step.reserve(frames), time.reserve(frames);
  for (const auto& wr : r.walkers) {
    if (!wr.ok) {
      continue;
    }
    for (std::int64_t f = 0; f < wr.n_frames; ++f) {
      walker.push_back(wr.walker);
      frame.push_back(f);
      step.push_back((f + 1) * r.stride);
      time.push_back(static_cast<double>(step.back()) * r.dt);
    }
  }

  {
    H5Handle h5md = w.group(file, "h5md");
    const std::array<std::int32_t, 2> version{1, 1};
    w.attr(h5md.get(), "version", H5T_STD_I32LE, H5T_NATIVE_INT32, version.data(), 2, false);
    H5Handle author = w.group(h5md.get(), "author");
    w.attr_strings(author.get(), "name", {"Trails"}, true);
    H5Handle creator = w.group(h5md.get(), "creator");
    w.attr_strings(creator.get(), "name", {"trails"}, true);
    w.attr_strings(creator.get(), "version", {TRAILS_VERSION}, true);
  }
  {
    const bool periodic = !r.boxes.empty();
    TRAILS_CHECK(
        !periodic || (r.spatial_dim == 3 && r.boxes.size() == static_cast<std::size_t>(frames) * 9),
        "boxes must be 9 values per frame of a 3-D system");
    H5Handle box = w.group(walkers, "box");
    w.attr_int(box.get(), "dimension", r.spatial_dim);
    w.attr_strings(box.get(), "boundary",
                   std::vector<std::string>(static_cast<std::size_t>(r.spatial_dim),
                                            periodic ? "periodic" : "none"),
                   false);
    w.dataset(position, "step", H5T_STD_I64LE, H5T_NATIVE_INT64, {frames}, sizeof(std::int64_t),
              step.data(), true);
    w.dataset(position, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {frames}, sizeof(double),
              time.data(), true);
    if (periodic) {
      // H5MD time-dependent box: edges [variable][D][D] (box vectors as rows), with the
      // position's step/time shared by hard links. Built-in runs have no box and no edges.
      H5Handle edges = w.group(box.get(), "edges");
      w.dataset(edges.get(), "value", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {frames, 3, 3},
                sizeof(double), r.boxes.data(), false);
      h.check(H5Lcreate_hard(file, "/particles/walkers/position/step", edges.get(), "step",
                             H5P_DEFAULT, H5P_DEFAULT),
              "box step link");
      h.check(H5Lcreate_hard(file, "/particles/walkers/position/time", edges.get(), "time",
                             H5P_DEFAULT, H5P_DEFAULT),
              "box time link");
    }
  }
  {
    H5Handle observables = w.group(file, "observables");
    auto observable = [&](const char* name, hid_t file_type, hid_t mem_type,
                          std::vector<hsize_t> dims, std::size_t elem_bytes, const void* data,
                          bool compress) {
      H5Handle g = w.group(observables.get(), name);
      w.dataset(g.get(), "value", file_type, mem_type, std::move(dims), elem_bytes, data, compress);
      // H5MD lets step/time be hard links to another element's: one copy, same rows.
      h.check(H5Lcreate_hard(file, "/particles/walkers/position/step", g.get(), "step", H5P_DEFAULT,
                             H5P_DEFAULT),
              "step link");
      h.check(H5Lcreate_hard(file, "/particles/walkers/position/time", g.get(), "time", H5P_DEFAULT,
                             H5P_DEFAULT),
              "time link");
    };
    observable("cvs", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {frames, static_cast<hsize_t>(r.cv_dim)},
               sizeof(double), r.cvs.data(),
               false);  // small, also in the ledger, and costly to deflate
    for (const auto& o : r.observables) {
      TRAILS_CHECK(o.n_columns > 0 && o.values.size() == static_cast<std::size_t>(frames) *
                                                             static_cast<std::size_t>(o.n_columns),
                   "an extra observable has one row per frame");
      observable(o.name.c_str(), H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                 {frames, static_cast<hsize_t>(o.n_columns)}, sizeof(double), o.values.data(),
                 false);
    }
    observable("walker", H5T_STD_I64LE, H5T_NATIVE_INT64, {frames}, sizeof(std::int64_t),
               walker.data(), true);
    observable("frame", H5T_STD_I64LE, H5T_NATIVE_INT64, {frames}, sizeof(std::int64_t),
               frame.data(), true);
  }
  {
    H5Handle parameters = w.group(file, "parameters");
    w.attr_int(parameters.get(), "iteration", r.iteration);
    w.attr_int(parameters.get(), "schema_version", kSchemaVersion);
    w.attr_int(parameters.get(), "stride", r.stride);
    w.attr_double(parameters.get(), "dt", r.dt);
  }
  H5Handle trails = w.group(file, "trails");
  write_record_policy(w, trails.get(), r);
  write_states(w, trails.get(), "final_state", "walker", r, r.final_states);
  if (!r.spawn_starts.empty()) {
    write_states(w, trails.get(), "spawn_starts", "slot", r, r.spawn_starts);
  }
}

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
  std::optional<Writer> w;
  hsize_t frames = 0;
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
  s.w.emplace(Writer{h, h.own(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, "group property list")});
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
  const bool f32 = s.layout.policy.float32;
  return s.w->dataset(
      s.position.get(), "value", f32 ? H5T_IEEE_F32LE : H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
      {static_cast<hsize_t>(frames), kept, static_cast<hsize_t>(s.layout.spatial_dim)},
      f32 ? sizeof(float) : sizeof(double), nullptr, true,
      static_cast<hsize_t>(std::max<std::int64_t>(s.layout.expected_frames, 0)));
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
  append_positions(s.h, s.value.get(), s.layout, s.frames, positions);
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
                   record.record_policy.float32 == s.layout.policy.float32,
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
