#include "trails/campaign/partial_iteration.h"

#include <fstream>
#include <iterator>
#include <system_error>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "trails/core/error.h"
#include "trails/core/fs.h"
#include "trails/exec/wire/wire.h"

namespace trails::campaign {
namespace {

namespace fs = std::filesystem;

fs::path iteration_dir(const fs::path& run_dir, std::int64_t iteration) {
  return partial_dir(run_dir) / fmt::format("iter_{:06d}", iteration);
}

fs::path walker_file(const fs::path& run_dir, std::int64_t iteration, std::int64_t walker) {
  return iteration_dir(run_dir, iteration) / fmt::format("walker_{:06d}.trwf", walker);
}

std::vector<std::uint8_t> task_bytes(const engines::SegmentTask& task) {
  return exec::wire::encode(exec::wire::Message{task});
}

}  // namespace

fs::path partial_dir(const fs::path& run_dir) { return run_dir / "partial"; }

std::size_t save_partial(const fs::path& run_dir, std::int64_t iteration,
                         const std::vector<engines::SegmentTask>& tasks,
                         const std::vector<engines::SegmentResult>& results,
                         const std::vector<char>& already) {
  std::size_t kept = 0;
  for (std::size_t w = 0; w < results.size(); ++w) {
    if (!results[w].ok()) continue;
    ++kept;
    if (already[w] != 0) continue;
    const fs::path dir = iteration_dir(run_dir, iteration);
    fs::create_directories(dir);
    auto bytes = exec::wire::frame_of(task_bytes(tasks[w]));
    const auto result = exec::wire::frame_of(exec::wire::encode(exec::wire::Message{results[w]}));
    bytes.insert(bytes.end(), result.begin(), result.end());
    core::write_file_atomic(
        walker_file(run_dir, iteration, static_cast<std::int64_t>(w)),
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }
  return kept;
}

std::map<std::int64_t, engines::SegmentResult> load_partial(
    const fs::path& run_dir, std::int64_t iteration,
    const std::vector<engines::SegmentTask>& tasks) {
  std::map<std::int64_t, engines::SegmentResult> kept;
  std::error_code ec;
  if (!fs::is_directory(iteration_dir(run_dir, iteration), ec)) return kept;
  for (std::size_t w = 0; w < tasks.size(); ++w) {
    const fs::path file = walker_file(run_dir, iteration, static_cast<std::int64_t>(w));
    if (!fs::is_regular_file(file, ec)) continue;
    try {
      std::ifstream in(file, std::ios::binary);
      std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in),
                                      std::istreambuf_iterator<char>()};
      const auto task = exec::wire::take_frame(bytes);
      const auto result = exec::wire::take_frame(bytes);
      if (!task || !result || !bytes.empty()) throw core::CorruptionError("incomplete file");
      if (*task != task_bytes(tasks[w])) continue;  // another task: run it
      auto message = exec::wire::decode(*result);
      auto* r = std::get_if<engines::SegmentResult>(&message);
      if (r == nullptr || !r->ok()) throw core::CorruptionError("not a finished walker's result");
      r->task_id = tasks[w].task_id;
      kept.emplace(static_cast<std::int64_t>(w), std::move(*r));
    } catch (const core::Error& e) {
      spdlog::warn("{}: {}; walker {} of iteration {} runs again", file.string(), e.what(), w,
                   iteration);
    }
  }
  return kept;
}

void clear_partial(const fs::path& run_dir) {
  std::error_code ec;
  if (fs::exists(partial_dir(run_dir), ec)) fs::remove_all(partial_dir(run_dir), ec);
}

}  // namespace trails::campaign
