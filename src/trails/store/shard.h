// One iteration's coordinate shard, an HDF5 file following H5MD 1.1 (private to
// src/trails/store/; layout in docs/file-formats.md). The writer builds the whole file in memory
// (HDF5 core driver) so the caller can write, fsync and checksum exactly those bytes; the
// reader opens a (checksum-verified) shard file read-only and reads single frames. Rows are
// the frames of the ok walkers in walker order. Writer errors are StoreError; reader errors
// are CorruptionError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

#include "trails/store/h5_util.h"
#include "trails/store/records.h"

namespace trails::store::detail {

// The complete shard file for `record` (a deterministic function of the record).
std::vector<std::byte> build_shard_image(const IterationRecord& record);

class ShardReader {
 public:
  explicit ShardReader(const std::filesystem::path& path);
  ShardReader(const ShardReader&) = delete;
  ShardReader& operator=(const ShardReader&) = delete;

  std::int64_t n_frames() const { return n_frames_; }
  std::int64_t n_atoms() const { return n_atoms_; }
  std::int64_t spatial_dim() const { return spatial_dim_; }
  // Positions of shard row `row` (n_atoms × spatial_dim values) into `out`.
  void read_frame(std::int64_t row, std::span<double> out) const;
  // True when the shard stores a box per frame (/particles/walkers/box/edges; older shards and
  // built-in runs have none).
  bool has_boxes() const { return boxes_.get() >= 0; }
  // Box of shard row `row` (9 values, vectors as rows) into `out`; requires has_boxes().
  void read_box(std::int64_t row, std::span<double> out) const;

 private:
  H5Context h_;
  H5Handle file_;
  H5Handle positions_;
  H5Handle boxes_;
  std::int64_t n_frames_ = 0;
  std::int64_t n_atoms_ = 0;
  std::int64_t spatial_dim_ = 0;
};

}  // namespace trails::store::detail
