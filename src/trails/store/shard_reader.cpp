#include <array>
#include <cmath>
#include <optional>
#include <string>

#include "trails/store/position_grid.h"
#include "trails/store/shard.h"
#include "trails/store/shard_grid.h"

namespace trails::store::detail {

ShardReader::ShardReader(const std::filesystem::path& path)
    : h_{path.string(), core::ErrorKind::Corruption} {
  H5Quiet quiet;
  file_ = h_.own(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose,
                 "not a readable HDF5 shard");
  positions_ = h_.own(H5Dopen2(file_.get(), "/particles/walkers/position/value", H5P_DEFAULT),
                      H5Dclose, "no /particles/walkers/position/value");
  H5Handle space = h_.own(H5Dget_space(positions_.get()), H5Sclose, "position dataspace");
  std::array<hsize_t, 3> dims{};
  if (H5Sget_simple_extent_ndims(space.get()) != 3) {
    h_.fail("position/value is not 3-D");
  }
  h_.check(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), "position dims");
  n_frames_ = static_cast<std::int64_t>(dims[0]);
  n_atoms_ = static_cast<std::int64_t>(dims[1]);
  spatial_dim_ = static_cast<std::int64_t>(dims[2]);
  if (H5Lexists(file_.get(), "/particles/walkers/box/edges", H5P_DEFAULT) > 0 &&
      H5Lexists(file_.get(), "/particles/walkers/box/edges/value", H5P_DEFAULT) > 0) {
    boxes_ = h_.own(H5Dopen2(file_.get(), "/particles/walkers/box/edges/value", H5P_DEFAULT),
                    H5Dclose, "box edges");
    H5Handle bspace = h_.own(H5Dget_space(boxes_.get()), H5Sclose, "box dataspace");
    std::array<hsize_t, 3> bdims{};
    if (H5Sget_simple_extent_ndims(bspace.get()) != 3) h_.fail("box/edges/value is not 3-D");
    h_.check(H5Sget_simple_extent_dims(bspace.get(), bdims.data(), nullptr), "box dims");
    if (bdims[0] != dims[0] || bdims[1] != 3 || bdims[2] != 3) {
      h_.fail("box/edges/value is not one 3 x 3 box per position frame");
    }
  }
  read_record_policy();
}

namespace {

bool has_path(hid_t file, const char* path) { return H5Lexists(file, path, H5P_DEFAULT) > 0; }

// Dimensions of dataset `path`; fails unless it has `rank` dimensions.
std::vector<hsize_t> dims_of(const H5Context& h, hid_t d, int rank, const char* what) {
  H5Handle space = h.own(H5Dget_space(d), H5Sclose, what);
  if (H5Sget_simple_extent_ndims(space.get()) != rank)
    h.fail(std::string(what) + " has the wrong rank");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  h.check(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), what);
  return dims;
}

std::vector<double> read_doubles(const H5Context& h, hid_t file, const char* path,
                                 const std::vector<hsize_t>& expected) {
  H5Handle d = h.own(H5Dopen2(file, path, H5P_DEFAULT), H5Dclose, path);
  if (dims_of(h, d.get(), static_cast<int>(expected.size()), path) != expected) {
    h.fail(std::string(path) + " does not have one row per final state");
  }
  std::size_t n = 1;
  for (auto e : expected) n *= e;
  std::vector<double> out(n);
  if (n > 0)
    h.check(H5Dread(d.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), path);
  return out;
}

}  // namespace

void ShardReader::read_record_policy() {
  system_atoms_ = n_atoms_;
  if (!has_path(file_.get(), "/trails/record_policy")) h_.fail("no /trails/record_policy");
  H5Handle g = h_.own(H5Gopen2(file_.get(), "/trails/record_policy", H5P_DEFAULT), H5Gclose,
                      "/trails/record_policy");
  H5Handle a = h_.own(H5Aopen(g.get(), "n_atoms", H5P_DEFAULT), H5Aclose, "record_policy n_atoms");
  h_.check(H5Aread(a.get(), H5T_NATIVE_INT64, &system_atoms_), "record_policy n_atoms");
  H5Handle p =
      h_.own(H5Aopen(g.get(), "precision", H5P_DEFAULT), H5Aclose, "record_policy precision");
  H5Handle type = h_.own(H5Aget_type(p.get()), H5Tclose, "precision type");
  std::string precision(H5Tget_size(type.get()), '\0');
  h_.check(H5Aread(p.get(), type.get(), precision.data()), "record_policy precision");
  precision.resize(precision.find('\0') == std::string::npos ? precision.size()
                                                             : precision.find('\0'));
  if (precision != "float32" && precision != "float64" && precision != "grid") {
    h_.fail("precision '" + precision + "'");
  }
  policy_.float32 = precision == "float32";
  if (precision == "grid") {  // shard_grid.h
    H5Handle s = h_.own(H5Aopen(g.get(), "position_precision", H5P_DEFAULT), H5Aclose,
                        "record_policy position_precision");
    h_.check(H5Aread(s.get(), H5T_NATIVE_DOUBLE, &policy_.position_precision),
             "record_policy position_precision");
    H5Handle r =
        h_.own(H5Aopen(g.get(), "group_rows", H5P_DEFAULT), H5Aclose, "record_policy group_rows");
    h_.check(H5Aread(r.get(), H5T_NATIVE_INT64, &group_rows_), "record_policy group_rows");
    if (!(policy_.position_precision > 0.0) || !std::isfinite(policy_.position_precision) ||
        group_rows_ < 1) {
      h_.fail("record_policy: position_precision must be > 0 and group_rows >= 1");
    }
  }
  if (has_path(file_.get(), "/trails/record_policy/atoms")) {
    H5Handle d = h_.own(H5Dopen2(file_.get(), "/trails/record_policy/atoms", H5P_DEFAULT), H5Dclose,
                        "record_policy atoms");
    const auto dims = dims_of(h_, d.get(), 1, "record_policy atoms");
    std::vector<std::int64_t> atoms(dims[0]);
    if (!atoms.empty()) {
      h_.check(H5Dread(d.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, atoms.data()),
               "record_policy atoms");
    }
    policy_.atoms.assign(atoms.begin(), atoms.end());
  }
  const auto kept =
      policy_.atoms.empty() ? system_atoms_ : static_cast<std::int64_t>(policy_.atoms.size());
  if (kept != n_atoms_) {
    h_.fail("positions hold " + std::to_string(n_atoms_) + " atoms, the record policy " +
            std::to_string(kept));
  }
}

std::vector<FinalState> ShardReader::read_final_states() const {
  return read_states("/trails/final_state", "walker");
}

std::optional<FrameObservable> ShardReader::read_observable(const std::string& name) const {
  H5Quiet quiet;
  const std::string group = "/observables/" + name;
  const std::string path = group + "/value";
  if (!has_path(file_.get(), "/observables") || !has_path(file_.get(), group.c_str()) ||
      !has_path(file_.get(), path.c_str()))
    return std::nullopt;
  H5Handle d = h_.own(H5Dopen2(file_.get(), path.c_str(), H5P_DEFAULT), H5Dclose, path.c_str());
  const auto dims = dims_of(h_, d.get(), 2, path.c_str());
  if (dims[0] != static_cast<hsize_t>(n_frames_))
    h_.fail(path + " does not have one row per position frame");
  FrameObservable out;
  out.name = name;
  out.n_columns = static_cast<int>(dims[1]);
  out.values = read_doubles(h_, file_.get(), path.c_str(), dims);
  return out;
}

std::vector<FinalState> ShardReader::read_spawn_starts() const {
  if (!has_path(file_.get(), "/trails/spawn_starts")) return {};
  return read_states("/trails/spawn_starts", "slot");
}

std::vector<FinalState> ShardReader::read_states(const std::string& group,
                                                 const char* index_name) const {
  H5Quiet quiet;
  const hid_t f = file_.get();
  if (!has_path(f, group.c_str())) h_.fail("no " + group);
  const std::string index_path = group + "/" + index_name;
  H5Handle d = h_.own(H5Dopen2(f, index_path.c_str(), H5P_DEFAULT), H5Dclose, index_name);
  const hsize_t n = dims_of(h_, d.get(), 1, index_name)[0];
  std::vector<std::int64_t> walker(n);
  if (n > 0) {
    h_.check(H5Dread(d.get(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, walker.data()),
             index_name);
  }
  const auto atoms = static_cast<hsize_t>(system_atoms_);
  const auto dim = static_cast<hsize_t>(spatial_dim_);
  const std::string xp = group + "/positions", vp = group + "/velocities", bp = group + "/box";
  const auto x = read_doubles(h_, f, xp.c_str(), {n, atoms, dim});
  std::vector<double> v, b;
  if (has_path(f, vp.c_str())) v = read_doubles(h_, f, vp.c_str(), {n, atoms, dim});
  if (has_path(f, bp.c_str())) b = read_doubles(h_, f, bp.c_str(), {n, 3, 3});
  const auto values = static_cast<std::ptrdiff_t>(atoms * dim);
  std::vector<FinalState> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::ptrdiff_t>(i);
    out[i].walker = walker[i];
    out[i].positions.assign(x.begin() + k * values, x.begin() + (k + 1) * values);
    if (!v.empty()) out[i].velocities.assign(v.begin() + k * values, v.begin() + (k + 1) * values);
    if (!b.empty()) out[i].box.assign(b.begin() + k * 9, b.begin() + (k + 1) * 9);
  }
  return out;
}

void ShardReader::read_box(std::int64_t row, std::span<double> out) const {
  H5Quiet quiet;
  if (!has_boxes()) h_.fail("the shard has no box edges");
  if (row < 0 || row >= n_frames_) h_.fail("row " + std::to_string(row) + " is out of range");
  if (out.size() != 9) h_.fail("box size mismatch");
  H5Handle fspace = h_.own(H5Dget_space(boxes_.get()), H5Sclose, "box dataspace");
  const std::array<hsize_t, 3> start{static_cast<hsize_t>(row), 0, 0};
  const std::array<hsize_t, 3> count{1, 3, 3};
  h_.check(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                               nullptr),
           "box selection");
  const hsize_t nine = 9;
  H5Handle mspace = h_.own(H5Screate_simple(1, &nine, nullptr), H5Sclose, "memory space");
  h_.check(
      H5Dread(boxes_.get(), H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), H5P_DEFAULT, out.data()),
      "cannot read box");
}

void ShardReader::read_frame(std::int64_t row, std::span<double> out) const {
  H5Quiet quiet;
  if (row < 0 || row >= n_frames_) {
    h_.fail("row " + std::to_string(row) + " is out of range");
  }
  const hsize_t count_elems = static_cast<hsize_t>(n_atoms_) * static_cast<hsize_t>(spatial_dim_);
  if (out.size() != count_elems) {
    h_.fail("frame size mismatch");
  }
  if (count_elems == 0) {
    return;
  }
  // A quantised frame is decoded from the first row of its group on (shard_grid.h): the rows
  // lie in one chunk, which HDF5 inflates once for the one read.
  const bool grid = policy_.quantised();
  const hsize_t first = grid ? static_cast<hsize_t>(row - row % group_rows_) : row;
  const hsize_t rows = static_cast<hsize_t>(row) - first + 1;
  H5Handle fspace = h_.own(H5Dget_space(positions_.get()), H5Sclose, "position dataspace");
  const std::array<hsize_t, 3> start{first, 0, 0};
  const std::array<hsize_t, 3> count{rows, static_cast<hsize_t>(n_atoms_),
                                     static_cast<hsize_t>(spatial_dim_)};
  h_.check(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                               nullptr),
           "frame selection");
  const hsize_t values = rows * count_elems;
  H5Handle mspace = h_.own(H5Screate_simple(1, &values, nullptr), H5Sclose, "memory space");
  if (!grid) {
    h_.check(H5Dread(positions_.get(), H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), H5P_DEFAULT,
                     out.data()),
             "cannot read positions");
    return;
  }
  std::vector<std::uint32_t> words(values);
  h_.check(H5Dread(positions_.get(), H5T_NATIVE_UINT32, mspace.get(), fspace.get(), H5P_DEFAULT,
                   words.data()),
           "cannot read positions");
  std::vector<std::int64_t> index(count_elems);
  decode_grid_rows(words, rows, static_cast<std::size_t>(spatial_dim_), index);
  for (std::size_t i = 0; i < count_elems; ++i) {
    out[i] = grid_value(index[i], policy_.position_precision);
  }
}

}  // namespace trails::store::detail
