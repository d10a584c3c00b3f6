// NumPy .npy files (format versions 1, 2 and 3): the one header parser of Trails, used by
// `trails msm` (integer state ids), system.project_file (float64 CV rows) and the command
// engine's walker files (float64 coordinates, both ways). read_npy checks
// the container (magic, header, C order, little-endian, data length) and hands the raw
// little-endian elements back; callers check dtype and shape for their use. Every problem is a
// core::InputError naming the file and what is wrong.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace trails::core {

struct NpyArray {
  std::string descr;                // dtype as written, e.g. "<f8", "<i4", "|u1"
  char kind = 0;                    // 'i' signed, 'u' unsigned, 'f' float, 'b' bool, ...
  int item_size = 0;                // bytes per element
  std::vector<std::int64_t> shape;  // () for a scalar
  std::string shape_text;           // the header's shape literal, e.g. "(2, 5)", for messages
  std::vector<unsigned char> data;  // n_elements() × item_size bytes, little-endian, C order

  std::int64_t n_elements() const;
  // Element i as a signed integer ('i'/'u'/'b' kinds; InputError-free: the caller checked kind).
  std::int64_t int_at(std::int64_t i) const;
  std::uint64_t uint_at(std::int64_t i) const;
  // Element i as a double ('f' kind with item_size 4 or 8).
  double float_at(std::int64_t i) const;
};

NpyArray read_npy(const std::filesystem::path& file);

// Writes `values` as a little-endian float64 array of `shape` (format version 1.0, C order).
// Throws InputError when the shape does not hold values.size() elements, StoreError (naming the
// file) when it cannot be written.
void write_npy(const std::filesystem::path& file, std::span<const double> values,
               const std::vector<std::int64_t>& shape);

// A NumPy .npz archive (numpy.load reads it) of float64 arrays, uncompressed, members in the
// given order: `trails export --trails-md-layout`'s cvs.npz. Errors as write_npy.
struct NpzEntry {
  std::string name;  // the key numpy.load gives it (member NAME.npy)
  std::span<const double> values;
  std::vector<std::int64_t> shape;
};
void write_npz(const std::filesystem::path& file, const std::vector<NpzEntry>& arrays);

}  // namespace trails::core
