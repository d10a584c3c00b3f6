#include <array>

#include "trails/store/shard.h"

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
  h_.check(H5Dread(boxes_.get(), H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), H5P_DEFAULT,
                   out.data()),
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
  H5Handle fspace = h_.own(H5Dget_space(positions_.get()), H5Sclose, "position dataspace");
  const std::array<hsize_t, 3> start{static_cast<hsize_t>(row), 0, 0};
  const std::array<hsize_t, 3> count{1, static_cast<hsize_t>(n_atoms_),
                                     static_cast<hsize_t>(spatial_dim_)};
  h_.check(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                               nullptr),
           "frame selection");
  H5Handle mspace = h_.own(H5Screate_simple(1, &count_elems, nullptr), H5Sclose, "memory space");
  h_.check(H5Dread(positions_.get(), H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), H5P_DEFAULT,
                   out.data()),
           "cannot read positions");
}

}  // namespace trails::store::detail
