#include "trails/report/trajectory_export.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "trails/core/error.h"
#include "trails/core/output_target.h"
#include "trails/report/export_segments.h"
#include "trails/store/run_store.h"
#include "trails/structure/structure_file.h"
#include "trails/trajio/trajectory.h"

namespace trails::report {
namespace fs = std::filesystem;
namespace {

std::string lower_extension(const fs::path& p) {
  auto ext = p.extension().string();
  for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

fs::path prepared_topology(const fs::path& run_dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(run_dir / "prepared", ec)) {
    if (fs::is_regular_file(entry.path() / "topology.pdb"))
      found.push_back(entry.path() / "topology.pdb");
  }
  if (found.empty()) {
    throw core::InputError(run_dir.string() +
                           " has no prepared/<digest>/topology.pdb; only "
                           "OpenMM runs that prepared a topology can export trajectories");
  }
  if (found.size() > 1) {
    std::sort(found.begin(), found.end());
    throw core::InputError(
        fmt::format("{} holds {} prepared systems ({} and others); remove the "
                    "stale ones so the run's topology is unambiguous",
                    run_dir.string(), found.size(), found[0].string()));
  }
  return found[0];
}

// The atoms `atoms` (sorted indices) of `full`, renumbered from 0, serials kept.
structure::Topology subset_topology(const structure::Topology& full,
                                    const std::vector<int>& atoms) {
  structure::Topology out;
  out.box = full.box;
  for (const int a : atoms) {
    out.atoms.push_back(full.atoms.at(static_cast<std::size_t>(a)));
    out.atoms.back().index = static_cast<int>(out.atoms.size()) - 1;
  }
  return out;
}

}  // namespace

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
  const auto ext = lower_extension(req.output);
  if (ext != ".xtc" && ext != ".dcd" && ext != ".pdb") {
    throw core::UsageError("export --trajectory " + req.output.string() +
                           ": the extension must be .xtc, .dcd or .pdb");
  }
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
  auto top = structure::read_structure(prepared_topology(req.run_dir));
  const auto records = store.load_iterations();
  const auto segments = select_segments(records, req.selection, req.run_dir);

  std::vector<core::FrameKey> keys;
  for (const auto& s : segments) {
    if (s.record->n_atoms != top.topology.n_atoms()) {
      throw core::InputError(
          fmt::format("iteration {} stores {} atoms but the prepared topology "
                      "has {}",
                      s.record->iteration, s.record->n_atoms, top.topology.n_atoms()));
    }
    for (std::int64_t f = 0; f < s.walker->n_frames; ++f) {
      keys.push_back({s.record->iteration, s.walker->walker, f});
    }
  }
  if (keys.empty()) throw core::UsageError("export --trajectory: the selection holds no frames");

  // A shard that records a selection (output.record_selection) pairs with that topology subset.
  if (const auto policy = store.record_policy(keys.front().iteration); !policy.atoms.empty()) {
    top.topology = subset_topology(top.topology, policy.atoms);
  }
  auto frames = store.load_frames(keys);
  // Written under temporary names, renamed over the targets once complete
  // (docs/reliability.md#inputs-and-outputs).
  core::PendingOutput pending(targets[0]);
  core::PendingOutput sidecar(targets[1]);
  sidecar.write(sidecar_json(req, segments));
  if (ext == ".pdb") {
    structure::StructureFile out;
    out.topology = top.topology;
    for (auto& f : frames) {
      std::optional<structure::Box> box;
      if (f.box.size() == 9) {
        box.emplace();
        std::copy(f.box.begin(), f.box.end(), box->begin());
      }
      out.frames.push_back(std::move(f.positions));
      out.boxes.push_back(box);
    }
    out.topology.box = out.boxes.front();
    structure::write_structure(pending.temp_path(), out);
  } else {
    auto writer = trajio::open_trajectory_writer(pending.temp_path(), top.topology.n_atoms());
    std::size_t k = 0;
    for (const auto& s : segments) {
      for (std::int64_t f = 0; f < s.walker->n_frames; ++f, ++k) {
        trajio::TrajectoryFrame tf;
        tf.positions_nm = std::move(frames[k].positions);
        if (frames[k].box.size() == 9) {
          tf.box.emplace();
          std::copy(frames[k].box.begin(), frames[k].box.end(), tf.box->begin());
        }
        tf.step = s.step(f);
        tf.time_ps = s.time(f);
        writer->write(tf);
      }
    }
    writer->close();
  }
  pending.commit();
  sidecar.commit();
  return static_cast<std::int64_t>(frames.size());
}

}  // namespace trails::report
