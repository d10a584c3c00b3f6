// Builds an iteration's H5MD shard in memory. Object timestamps are switched off so that the
// bytes (and so the ledger checksum) depend on the record only: a resumed run rewrites an
// iteration bit for bit.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "trails/core/error.h"
#include "trails/store/run_store.h"
#include "trails/store/shard.h"

namespace trails::store::detail {
namespace {

constexpr std::size_t kChunkBytes =
    std::size_t{32} * 1024;            // a few frames per chunk: cheap single-frame reads
constexpr unsigned kDeflateLevel = 1;  // coordinates compress little: favour speed

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
  void dataset(hid_t parent, const char* name, hid_t file_type, hid_t mem_type,
               std::vector<hsize_t> dims, std::size_t elem_bytes, const void* data,
               bool compress) const {
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
      chunk[0] = std::clamp<hsize_t>(rows, 1, std::max<hsize_t>(dims[0], 1));
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
    if (dims[0] * row_elems > 0) {
      h.check(H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
    }
  }
};

void write_contents(const H5Context& h, hid_t file, const IterationRecord& r) {
  Writer w{h, h.own(H5Pcreate(H5P_GROUP_CREATE), H5Pclose, "group property list")};
  h.check(H5Pset_obj_track_times(w.ocpl.get(), 0), "group property list");
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
    H5Handle particles = w.group(file, "particles");
    H5Handle walkers = w.group(particles.get(), "walkers");
    const bool periodic = !r.boxes.empty();
    TRAILS_CHECK(!periodic || (r.spatial_dim == 3 &&
                               r.boxes.size() == static_cast<std::size_t>(frames) * 9),
                 "boxes must be 9 values per frame of a 3-D system");
    H5Handle box = w.group(walkers.get(), "box");
    w.attr_int(box.get(), "dimension", r.spatial_dim);
    w.attr_strings(box.get(), "boundary",
                   std::vector<std::string>(static_cast<std::size_t>(r.spatial_dim),
                                            periodic ? "periodic" : "none"),
                   false);
    H5Handle position = w.group(walkers.get(), "position");
    w.dataset(position.get(), "value", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
              {frames, static_cast<hsize_t>(r.n_atoms), static_cast<hsize_t>(r.spatial_dim)},
              sizeof(double), r.positions.data(), true);
    w.dataset(position.get(), "step", H5T_STD_I64LE, H5T_NATIVE_INT64, {frames},
              sizeof(std::int64_t), step.data(), true);
    w.dataset(position.get(), "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {frames}, sizeof(double),
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
}

}  // namespace

std::vector<std::byte> build_shard_image(const IterationRecord& record) {
  H5Quiet quiet;
  const H5Context h{"shard of iteration " + std::to_string(record.iteration),
                    core::ErrorKind::Store};
  // Grow the in-memory file in steps near its final size to avoid repeated reallocation.
  std::size_t values = record.positions.size() + record.cvs.size();
  for (const auto& o : record.observables) values += o.values.size();
  const std::size_t estimate = values * 8 + (64 << 10);
  H5Handle fapl = h.own(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "file access list");
  h.check(H5Pset_fapl_core(fapl.get(), estimate, 0), "core driver");
  H5Handle fcpl = h.own(H5Pcreate(H5P_FILE_CREATE), H5Pclose, "file creation list");
  h.check(H5Pset_obj_track_times(fcpl.get(), 0), "file creation list");
  H5Handle file =
      h.own(H5Fcreate(h5_memory_name("shard").c_str(), H5F_ACC_TRUNC, fcpl.get(), fapl.get()),
            H5Fclose, "cannot create the in-memory file");
  write_contents(h, file.get(), record);
  h.check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), "flush");
  const ssize_t size = H5Fget_file_image(file.get(), nullptr, 0);
  if (size < 0) {
    h.fail("cannot size the file image");
  }
  std::vector<std::byte> image(static_cast<std::size_t>(size));
  if (H5Fget_file_image(file.get(), image.data(), image.size()) != size) {
    h.fail("cannot copy the file image");
  }
  return image;
}

}  // namespace trails::store::detail
