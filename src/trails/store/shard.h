// One iteration's coordinate shard, an HDF5 file following H5MD 1.1 (private to
// src/trails/store/; layout in docs/file-formats.md). The builder takes the positions as the
// walkers finish and the rest of the record at commit, then fsyncs the file and checksums its
// bytes; the reader opens a (checksum-verified)
// shard file read-only and reads single frames and the final states. Rows are the frames of
// the ok walkers in walker order. Writer errors are StoreError; reader errors are
// CorruptionError.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "trails/store/h5_util.h"
#include "trails/store/records.h"

namespace trails::store::detail {

// Writes the complete shard file for `record` at `path` (created or truncated) and fsyncs it
// (not its directory). The bytes are a deterministic function of the record.
struct ShardFile {
  std::int64_t bytes = 0;
  std::string checksum;  // CRC-32, 8 hex digits (shard_io.h)
};

// A shard being written at `path` (created or truncated): positions appended in row order
// (the ok walkers' frames in walker order), then finish() adds everything else from the record
// and fsyncs the file (not its directory). The bytes are a deterministic function of the
// sequence of appends and the record. Destroyed unfinished, it removes its file.
class ShardBuilder {
 public:
  ShardBuilder(const std::filesystem::path& path, const ShardLayout& layout);
  ~ShardBuilder();
  ShardBuilder(const ShardBuilder&) = delete;
  ShardBuilder& operator=(const ShardBuilder&) = delete;

  // Whole frames of the full system (n_atoms × spatial_dim values each), written under the
  // layout's record policy.
  void append(std::span<const double> positions);
  std::int64_t frames() const;
  // The record's frames must be the appended ones (same count, layout and policy).
  ShardFile finish(const IterationRecord& record);

 private:
  struct Impl;
  static H5Handle create_positions(Impl& s, std::int64_t frames);
  std::unique_ptr<Impl> impl_;
};

ShardLayout shard_layout_of(const IterationRecord& record);
// The whole shard of a record holding its positions: one append, then finish().
ShardFile write_shard_file(const std::filesystem::path& path, const IterationRecord& record);

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
  // The record policy the positions were written under (/trails/record_policy): indices of
  // the recorded atoms into the full system (empty: every atom) and their precision (a
  // quantised shard's frames come back as grid index × position_precision).
  const RecordPolicy& record_policy() const { return policy_; }
  // Atoms of the full system (the final states' atom count).
  std::int64_t system_atoms() const { return system_atoms_; }
  // /trails/final_state, one entry per ok walker in walker order, at float64.
  std::vector<FinalState> read_final_states() const;
  // /observables/<name>/value (one row per frame), or nullopt when the shard has none.
  std::optional<FrameObservable> read_observable(const std::string& name) const;
  // /trails/spawn_starts (walker = slot), or empty when the shard has none.
  std::vector<FinalState> read_spawn_starts() const;

 private:
  H5Context h_;
  H5Handle file_;
  H5Handle positions_;
  H5Handle boxes_;
  std::int64_t n_frames_ = 0;
  std::int64_t n_atoms_ = 0;
  std::int64_t spatial_dim_ = 0;
  std::int64_t system_atoms_ = 0;
  RecordPolicy policy_;
  std::int64_t group_rows_ = 1;  // rows per group of a quantised shard (shard_grid.h)

  void read_record_policy();
  std::vector<FinalState> read_states(const std::string& group, const char* index_name) const;
};

}  // namespace trails::store::detail
