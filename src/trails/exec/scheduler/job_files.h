// The files a scheduler array shares between the driver and its array tasks
// (docs/execution.md, "Scheduler arrays"; docs/file-formats.md, "jobs/"). A pack file holds
// what one array task runs: the wire format's Setup then its Tasks, one frame each. Each walker
// leaves result_<task_id>.trwf (its Result message) and then result_<task_id>.ok, a one-line
// JSON marker {"task_id", "success", "digest"}; both are written atomically (temporary name,
// fsync, rename), so a marker that exists names a whole result. The digest is the task's own
// (FNV-1a over its wire encoding): a marker left by another task under the same id is stale.
// Errors: StoreError for files that cannot be written, CorruptionError for a damaged pack.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trails/engines/segment.h"
#include "trails/exec/wire/wire.h"

namespace trails::exec::jobs {

// 16 hex digits identifying a task's content (its wire encoding).
std::string task_digest(const engines::SegmentTask& task);

std::filesystem::path result_path(const std::filesystem::path& dir, std::int64_t task_id);
std::filesystem::path marker_path(const std::filesystem::path& dir, std::int64_t task_id);

struct Pack {
  wire::Setup setup;
  std::vector<engines::SegmentTask> tasks;
};
void write_pack(const std::filesystem::path& file, const Pack& pack);
Pack read_pack(const std::filesystem::path& file);

struct Marker {
  std::int64_t task_id = 0;
  bool success = false;
  std::string digest;
};
// The result file, then the marker (success = status Ok).
void write_result(const std::filesystem::path& dir, const engines::SegmentResult& result,
                  const std::string& digest);
// std::nullopt when the marker is missing or unreadable (a torn copy from another filesystem).
std::optional<Marker> read_marker(const std::filesystem::path& dir, std::int64_t task_id);
// The walker's result; std::nullopt when the file is missing or damaged.
std::optional<engines::SegmentResult> read_result(const std::filesystem::path& dir,
                                                  std::int64_t task_id);
// Removes the marker and the result (a stale pair before a task runs again).
void remove_result(const std::filesystem::path& dir, std::int64_t task_id);
// Copies a finished walker's pair from one directory to another: result first, marker last,
// each atomically (node-local scratch back to the shared jobs directory).
void copy_result(const std::filesystem::path& from, const std::filesystem::path& to,
                 std::int64_t task_id);

}  // namespace trails::exec::jobs
