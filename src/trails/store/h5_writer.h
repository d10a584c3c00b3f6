// HDF5 writing helpers for the run store's shards (private to src/trails/store/): groups,
// attributes and datasets created without object timestamps, so a shard's bytes depend on its
// contents only (docs/file-formats.md, "When a shard is written"); datasets are chunked and
// compressed by one policy. Every failure is reported through the H5Context (naming the file).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "trails/store/h5_util.h"

namespace trails::store::detail {

struct H5Writer {
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
                    bool scalar) const;

  // A time-dependent H5MD array: first dimension [variable] (unlimited), chunked, and
  // shuffled+deflated when `compress`; contiguous when a row has no elements (HDF5 cannot
  // chunk a zero extent).
  // `rows_hint`: the rows expected when the dataset starts empty and is extended (chunking).
  // `chunk_rows`: rows per chunk when the layout needs a fixed number (0: a few per 32 KiB).
  H5Handle dataset(hid_t parent, const char* name, hid_t file_type, hid_t mem_type,
                   std::vector<hsize_t> dims, std::size_t elem_bytes, const void* data,
                   bool compress, hsize_t rows_hint = 0, hsize_t chunk_rows = 0) const;
};

}  // namespace trails::store::detail
