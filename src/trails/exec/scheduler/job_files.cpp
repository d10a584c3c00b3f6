// The job files of a scheduler array (job_files.h).
#include "trails/exec/scheduler/job_files.h"

#include <fmt/format.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>

#include "trails/core/error.h"
#include "trails/core/fs.h"

namespace trails::exec::jobs {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string_view as_chars(const std::vector<std::uint8_t>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

std::string task_digest(const engines::SegmentTask& task) {
  std::uint64_t hash = 14695981039346656037ULL;  // FNV-1a, 64 bits: stable across builds
  for (const std::uint8_t byte : wire::encode(task)) {
    hash ^= byte;
    hash *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", hash);
}

fs::path result_path(const fs::path& dir, std::int64_t task_id) {
  return dir / fmt::format("result_{}.trwf", task_id);
}

fs::path marker_path(const fs::path& dir, std::int64_t task_id) {
  return dir / fmt::format("result_{}.ok", task_id);
}

void write_pack(const fs::path& file, const Pack& pack) {
  std::string content;
  const auto append = [&](const wire::Message& message) {
    const std::vector<std::uint8_t> frame = wire::frame_of(wire::encode(message));
    content.append(as_chars(frame));
  };
  append(pack.setup);
  for (const engines::SegmentTask& task : pack.tasks) append(task);
  core::write_file_atomic(file, content);
}

Pack read_pack(const fs::path& file) {
  const std::optional<std::string> content = read_all(file);
  if (!content) throw core::InputError(file.string() + ": cannot read the pack file");
  std::vector<std::uint8_t> buffer(content->begin(), content->end());
  Pack pack;
  bool first = true;
  while (std::optional<std::vector<std::uint8_t>> payload = wire::take_frame(buffer)) {
    wire::Message message = wire::decode(*payload);
    if (first) {
      if (wire::kind_of(message) != wire::MessageKind::Setup)
        throw core::CorruptionError(file.string() + ": a pack file starts with a Setup message");
      pack.setup = std::get<wire::Setup>(std::move(message));
      first = false;
    } else if (auto* task = std::get_if<engines::SegmentTask>(&message)) {
      pack.tasks.push_back(std::move(*task));
    } else {
      throw core::CorruptionError(file.string() +
                                  ": a pack file holds only Task messages after Setup");
    }
  }
  if (first || !buffer.empty())
    throw core::CorruptionError(file.string() + ": truncated pack file");
  return pack;
}

void write_result(const fs::path& dir, const engines::SegmentResult& result,
                  const std::string& digest) {
  core::write_file_atomic(result_path(dir, result.task_id), as_chars(wire::encode(result)));
  const nlohmann::json marker = {{"task_id", result.task_id},
                                 {"success", result.status == engines::SegmentStatus::Ok},
                                 {"digest", digest}};
  core::write_file_atomic(marker_path(dir, result.task_id), marker.dump() + "\n");
}

std::optional<Marker> read_marker(const fs::path& dir, std::int64_t task_id) {
  const std::optional<std::string> text = read_all(marker_path(dir, task_id));
  if (!text) return std::nullopt;
  try {
    const nlohmann::json j = nlohmann::json::parse(*text);
    return Marker{j.at("task_id").get<std::int64_t>(), j.at("success").get<bool>(),
                  j.at("digest").get<std::string>()};
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

std::optional<engines::SegmentResult> read_result(const fs::path& dir, std::int64_t task_id) {
  const std::optional<std::string> bytes = read_all(result_path(dir, task_id));
  if (!bytes) return std::nullopt;
  try {
    wire::Message message = wire::decode(
        std::span(reinterpret_cast<const std::uint8_t*>(bytes->data()), bytes->size()));
    auto* result = std::get_if<engines::SegmentResult>(&message);
    if (result == nullptr || result->task_id != task_id) return std::nullopt;
    return std::move(*result);
  } catch (const core::Error&) {
    return std::nullopt;
  }
}

void remove_result(const fs::path& dir, std::int64_t task_id) {
  std::error_code ignored;  // absent is fine
  fs::remove(marker_path(dir, task_id), ignored);
  fs::remove(result_path(dir, task_id), ignored);
}

void copy_result(const fs::path& from, const fs::path& to, std::int64_t task_id) {
  for (const fs::path& name :
       {result_path(from, task_id).filename(), marker_path(from, task_id).filename()}) {
    const std::optional<std::string> content = read_all(from / name);
    if (!content)
      throw core::StoreError((from / name).string() + ": cannot read the staged result");
    core::write_file_atomic(to / name, *content);
  }
}

}  // namespace trails::exec::jobs
