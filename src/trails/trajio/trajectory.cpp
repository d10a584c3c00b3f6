#include "trails/trajio/trajectory.h"

#include <algorithm>
#include <cctype>

#include "trails/core/error.h"
#include "trails/trajio/formats.h"

namespace trails::trajio {

TrajectoryFormat trajectory_format_of(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".xtc") return TrajectoryFormat::Xtc;
  if (ext == ".dcd") return TrajectoryFormat::Dcd;
  throw core::InputError(path.string() + ": unknown trajectory format '" + ext +
                         "'; use a .xtc or .dcd file name");
}

std::unique_ptr<TrajectoryWriter> open_trajectory_writer(const std::filesystem::path& path,
                                                         int n_atoms,
                                                         const TrajectoryWriterOptions& options) {
  const TrajectoryFormat format = trajectory_format_of(path);
  if (n_atoms < 1) {
    throw core::InputError(path.string() + ": a trajectory needs at least one atom (got " +
                           std::to_string(n_atoms) + ")");
  }
  switch (format) {
    case TrajectoryFormat::Xtc:
      return detail::open_xtc_writer(path, n_atoms, options.xtc_precision);
    case TrajectoryFormat::Dcd:
      return detail::open_dcd_writer(path, n_atoms, options.dcd_title);
  }
  throw core::InternalError("unhandled trajectory format");
}

Trajectory read_trajectory(const std::filesystem::path& path, std::optional<int> n_atoms) {
  switch (trajectory_format_of(path)) {
    case TrajectoryFormat::Xtc:
      return detail::read_xtc(path, n_atoms);
    case TrajectoryFormat::Dcd:
      return detail::read_dcd(path, n_atoms);
  }
  throw core::InternalError("unhandled trajectory format");
}

}  // namespace trails::trajio
