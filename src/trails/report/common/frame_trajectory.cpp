#include "trails/report/common/frame_trajectory.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/store/prepared_topology.h"
#include "trails/structure/structure_file.h"
#include "trails/trajio/trajectory.h"

namespace trails::report {
namespace fs = std::filesystem;
namespace {

std::optional<structure::Box> box_of(const std::vector<double>& box) {
  if (box.size() != 9) return std::nullopt;
  structure::Box b{};
  std::copy(box.begin(), box.end(), b.begin());
  return b;
}

}  // namespace

std::string trajectory_extension(const std::string& option, const fs::path& file) {
  auto ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext != ".xtc" && ext != ".dcd" && ext != ".pdb") {
    throw core::UsageError(
        fmt::format("{} {}: a trajectory ends in .xtc, .dcd or .pdb; nothing was written", option,
                    file.string()));
  }
  return ext;
}

void write_frame_trajectory(const store::RunStore& store, const fs::path& run_dir,
                            std::span<const core::FrameKey> keys,
                            std::span<const FrameStamp> stamps, const fs::path& file) {
  TRAILS_CHECK(!keys.empty(), "write_frame_trajectory needs frames");
  TRAILS_CHECK(stamps.size() == keys.size(), "one stamp per frame");
  auto top = structure::read_structure(store::prepared_topology(run_dir)).topology;
  const auto policy = store.record_policy(keys.front().iteration);
  for (const auto& k : keys) {
    if (store.record_policy(k.iteration).atoms != policy.atoms) {
      throw core::InputError(fmt::format(
          "frames {} and {} were stored with different output.record_selection atoms; one "
          "trajectory cannot hold both",
          keys.front().to_string(), k.to_string()));
    }
  }
  if (!policy.atoms.empty()) {
    structure::Topology kept;
    kept.box = top.box;
    for (const int a : policy.atoms) {
      kept.atoms.push_back(top.atoms.at(static_cast<std::size_t>(a)));
      kept.atoms.back().index = static_cast<int>(kept.atoms.size()) - 1;
    }
    top = std::move(kept);
  }
  auto frames = store.load_frames(keys);
  for (std::size_t k = 0; k < frames.size(); ++k) {
    if (frames[k].positions.size() != 3 * static_cast<std::size_t>(top.n_atoms())) {
      throw core::InputError(
          fmt::format("frame {} stores {} coordinates but the topology has {} "
                      "atoms",
                      keys[k].to_string(), frames[k].positions.size(), top.n_atoms()));
    }
  }
  if (trajectory_extension("the trajectory", file) == ".pdb") {
    structure::StructureFile out;
    out.topology = top;
    for (auto& f : frames) {
      out.boxes.push_back(box_of(f.box));
      out.frames.push_back(std::move(f.positions));
    }
    out.topology.box = out.boxes.front();
    structure::write_structure(file, out);
    return;
  }
  auto writer = trajio::open_trajectory_writer(file, top.n_atoms());
  for (std::size_t k = 0; k < frames.size(); ++k) {
    trajio::TrajectoryFrame tf;
    tf.positions_nm = std::move(frames[k].positions);
    tf.box = box_of(frames[k].box);
    tf.step = stamps[k].step;
    tf.time_ps = stamps[k].time_ps;
    writer->write(tf);
  }
  writer->close();
}

}  // namespace trails::report
