#include "trails/report/export/trajectory_frames.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/engines/amber/amber_netcdf.h"
#include "trails/structure/structure_file.h"
#include "trails/trajio/trajectory.h"
#include "trails/trajio/trr.h"

namespace trails::report {
namespace {

namespace fs = std::filesystem;

std::string extension_of(const fs::path& file) {
  std::string ext = file.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

// Appends one frame; every frame has a box or none has.
void add_frame(TrajectoryFrames& out, const fs::path& file, const std::vector<double>& positions,
               const std::optional<structure::Box>& box) {
  if (out.n_frames > 0 && box.has_value() != !out.boxes.empty()) {
    throw core::InputError(fmt::format(
        "{}: frame {} {} a box but frame 0 {}; a trajectory's frames all have a box or none has",
        file.string(), out.n_frames, box ? "has" : "has no", box ? "has none" : "has one"));
  }
  out.positions.insert(out.positions.end(), positions.begin(), positions.end());
  if (box) out.boxes.insert(out.boxes.end(), box->begin(), box->end());
  ++out.n_frames;
}

}  // namespace

bool is_trajectory_file(const fs::path& file) {
  const std::string ext = extension_of(file);
  return ext == ".xtc" || ext == ".dcd" || ext == ".trr" || ext == ".nc" || ext == ".pdb" ||
         ext == ".gro";
}

TrajectoryFrames read_trajectory_frames(const fs::path& file, int n_atoms, int spatial_dim) {
  if (spatial_dim != 3) {
    throw core::InputError(file.string() +
                           ": the run's system is a point of the built-in engine's potential, "
                           "not atoms; project its coordinates as feature rows (.npy or .csv)");
  }
  if (!fs::is_regular_file(file)) throw core::InputError(file.string() + ": no such file");
  const std::string ext = extension_of(file);
  TrajectoryFrames out;
  if (ext == ".xtc" || ext == ".dcd") {
    for (const auto& f : trajio::read_trajectory(file, n_atoms).frames) {
      add_frame(out, file, f.positions_nm, f.box);
    }
  } else if (ext == ".trr") {
    for (const auto& f : trajio::read_trr(file, n_atoms).frames) {
      if (f.positions.empty()) continue;  // a frame of velocities or forces only
      add_frame(out, file, f.positions, f.box);
    }
  } else if (ext == ".nc") {
    const auto a = engines::amber::read_netcdf_trajectory(file, n_atoms);
    out.n_frames = static_cast<std::int64_t>(a.n_frames);
    out.positions = a.positions_nm;
    out.boxes = a.boxes;
  } else {  // .pdb, .gro
    const structure::StructureFile s = structure::read_structure(file);
    if (s.topology.n_atoms() != n_atoms) {
      throw core::InputError(fmt::format("{}: {} atoms, but the run's system has {}", file.string(),
                                         s.topology.n_atoms(), n_atoms));
    }
    for (int k = 0; k < s.n_frames(); ++k) add_frame(out, file, s.frames[k], s.boxes[k]);
  }
  if (out.n_frames == 0) throw core::InputError(file.string() + ": holds no frame");
  return out;
}

}  // namespace trails::report
