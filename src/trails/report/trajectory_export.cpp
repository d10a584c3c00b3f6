#include "trails/report/trajectory_export.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/output_target.h"
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

std::int64_t export_trajectory(const TrajectoryExportRequest& req) {
  const auto ext = lower_extension(req.output);
  if (ext != ".xtc" && ext != ".dcd" && ext != ".pdb") {
    throw core::UsageError("export --trajectory " + req.output.string() +
                           ": the extension must be .xtc, .dcd or .pdb");
  }
  const auto target = core::check_output("--trajectory", req.output);
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

  std::vector<core::FrameKey> keys;
  double dt_stride = 0.0;
  bool iteration_seen = false;
  bool walker_seen = false;
  for (const auto& r : records) {
    if (req.iteration && r.iteration != *req.iteration) continue;
    iteration_seen = true;
    dt_stride = static_cast<double>(r.stride) * r.dt;
    if (r.n_atoms != top.topology.n_atoms()) {
      throw core::InputError(
          fmt::format("iteration {} stores {} atoms but the prepared topology "
                      "has {}",
                      r.iteration, r.n_atoms, top.topology.n_atoms()));
    }
    for (const auto& w : r.walkers) {
      if (req.walker && w.walker != *req.walker) continue;
      walker_seen = true;
      if (!w.ok) continue;
      for (std::int64_t f = 0; f < w.n_frames; ++f) keys.push_back({r.iteration, w.walker, f});
    }
  }
  if (req.iteration && !iteration_seen) {
    throw core::UsageError(
        fmt::format("export --iteration {}: not a committed iteration of {} "
                    "({} committed)",
                    *req.iteration, req.run_dir.string(), records.size()));
  }
  if (req.walker && !walker_seen) {
    throw core::UsageError(
        fmt::format("export --walker {}: no such walker in {}", *req.walker, req.run_dir.string()));
  }
  if (keys.empty()) throw core::UsageError("export --trajectory: the selection holds no frames");

  // A shard that records a selection (output.record_selection) pairs with that topology subset.
  if (const auto policy = store.record_policy(keys.front().iteration); !policy.atoms.empty()) {
    top.topology = subset_topology(top.topology, policy.atoms);
  }
  auto frames = store.load_frames(keys);
  // Written under a temporary name, renamed over the target once complete
  // (docs/reliability.md#inputs-and-outputs).
  core::PendingOutput pending(target);
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
    for (std::size_t k = 0; k < frames.size(); ++k) {
      trajio::TrajectoryFrame tf;
      tf.positions_nm = std::move(frames[k].positions);
      if (frames[k].box.size() == 9) {
        tf.box.emplace();
        std::copy(frames[k].box.begin(), frames[k].box.end(), tf.box->begin());
      }
      tf.step = static_cast<std::int64_t>(k + 1);
      tf.time_ps = static_cast<double>(k + 1) * dt_stride;
      writer->write(tf);
    }
    writer->close();
  }
  pending.commit();
  return static_cast<std::int64_t>(frames.size());
}

}  // namespace trails::report
