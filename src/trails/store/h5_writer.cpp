#include "trails/store/h5_writer.h"

#include <algorithm>

namespace trails::store::detail {
namespace {

constexpr std::size_t kChunkBytes =
    std::size_t{32} * 1024;            // a few frames per chunk: cheap single-frame reads
constexpr unsigned kDeflateLevel = 1;  // coordinates compress little: favour speed

}  // namespace

void H5Writer::attr_strings(hid_t obj, const char* name, const std::vector<std::string>& values,
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

H5Handle H5Writer::dataset(hid_t parent, const char* name, hid_t file_type, hid_t mem_type,
                           std::vector<hsize_t> dims, std::size_t elem_bytes, const void* data,
                           bool compress, hsize_t rows_hint, hsize_t chunk_rows) const {
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
    chunk[0] = chunk_rows > 0 ? chunk_rows
                              : std::clamp<hsize_t>(
                                    rows, 1, std::max<hsize_t>(std::max(dims[0], rows_hint), 1));
    maxdims[0] = H5S_UNLIMITED;
    h.check(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()), name);
    if (compress) {
      h.check(H5Pset_shuffle(dcpl.get()), name);
      h.check(H5Pset_deflate(dcpl.get(), kDeflateLevel), name);
    }
  }
  H5Handle space = h.own(
      H5Screate_simple(static_cast<int>(dims.size()), dims.data(), maxdims.data()), H5Sclose, name);
  H5Handle d =
      h.own(H5Dcreate2(parent, name, file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
            H5Dclose, name);
  if (data != nullptr && dims[0] * row_elems > 0) {
    h.check(H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), name);
  }
  return d;
}

}  // namespace trails::store::detail
