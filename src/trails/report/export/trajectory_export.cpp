#include "trails/report/export/trajectory_export.h"

#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "trails/core/error.h"
#include "trails/core/output_target.h"
#include "trails/report/common/frame_trajectory.h"
#include "trails/report/export/export_segments.h"
#include "trails/store/run_store.h"

namespace trails::report {
namespace fs = std::filesystem;
fs::path trajectory_sidecar(const fs::path& output) {
  auto p = output;
  p += ".json";
  return p;
}

namespace {

// A JSON list with one element per line.
std::string json_lines(const std::vector<nlohmann::json>& items) {
  std::string out = "[";
  for (std::size_t k = 0; k < items.size(); ++k) out += (k ? ",\n  " : "\n  ") + items[k].dump();
  return out + (items.empty() ? "]" : "\n ]");
}

// The sidecar: every written frame's key, iteration, walker, frame, step and time, and where
// each segment starts in the file (docs/analysis.md#exports). One frame per line.
std::string sidecar_json(const TrajectoryExportRequest& req,
                         const std::vector<ExportSegment>& segments) {
  std::vector<nlohmann::json> frames;
  std::vector<nlohmann::json> segs;
  std::int64_t index = 0;
  for (const auto& s : segments) {
    const auto& w = *s.walker;
    segs.push_back({{"first_index", index},
                    {"n_frames", w.n_frames},
                    {"iteration", s.record->iteration},
                    {"walker", w.walker},
                    {"parent", w.parent ? nlohmann::json(w.parent->to_string()) : nlohmann::json()},
                    {"start_time", s.start_time}});
    for (std::int64_t f = 0; f < w.n_frames; ++f, ++index) {
      frames.push_back({{"index", index},
                        {"key", core::FrameKey{s.record->iteration, w.walker, f}.to_string()},
                        {"iteration", s.record->iteration},
                        {"walker", w.walker},
                        {"frame", f},
                        {"step", s.step(f)},
                        {"time", s.time(f)}});
    }
  }
  return fmt::format(
      "{{\n \"trajectory\": {},\n \"run_dir\": {},\n \"time_unit\": \"ps\",\n \"n_frames\": {},"
      "\n \"segments\": {},\n \"frames\": {}\n}}\n",
      nlohmann::json(req.output.filename().string()).dump(),
      nlohmann::json(req.run_dir.string()).dump(), index, json_lines(segs), json_lines(frames));
}

}  // namespace

std::int64_t export_trajectory(const TrajectoryExportRequest& req) {
  (void)trajectory_extension("export --trajectory", req.output);
  const auto targets = core::check_outputs(
      {{"--trajectory", req.output}, {"--trajectory (sidecar)", trajectory_sidecar(req.output)}});
  const auto store = store::RunStore::open(req.run_dir, store::RunStore::Mode::ReadOnly);
  const auto& system = store.meta().engine_system;
  if (!system.value("molecular", false)) {
    const auto engine = system.value("engine", std::string("non-molecular"));
    throw core::UsageError("export --trajectory: " + req.run_dir.string() + " is a " + engine +
                           " run, whose particles are CV-space points, not atoms; export its "
                           "coordinates with --cvs FILE instead");
  }
  const auto records = store.load_iterations();
  const auto segments = select_segments(records, req.selection, req.run_dir);
  std::vector<core::FrameKey> keys;
  std::vector<FrameStamp> stamps;
  for (const auto& s : segments) {
    for (std::int64_t f = 0; f < s.walker->n_frames; ++f) {
      keys.push_back({s.record->iteration, s.walker->walker, f});
      stamps.push_back({s.step(f), s.time(f)});  // walker-local (export_segments.h)
    }
  }
  if (keys.empty()) throw core::UsageError("export --trajectory: the selection holds no frames");
  // Written under temporary names, renamed over the targets once complete
  // (docs/reliability.md#inputs-and-outputs).
  core::PendingOutput pending(targets[0]);
  core::PendingOutput sidecar(targets[1]);
  sidecar.write(sidecar_json(req, segments));
  write_frame_trajectory(store, req.run_dir, keys, stamps, pending.temp_path());
  pending.commit();
  sidecar.commit();
  return static_cast<std::int64_t>(keys.size());
}

}  // namespace trails::report
