// Per-format entry points behind trajectory.h's dispatch. Internal to trails_trajio: callers
// use open_trajectory_writer / read_trajectory. Same units and error contract as trajectory.h.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "trails/trajio/trajectory.h"

namespace trails::trajio::detail {

std::unique_ptr<TrajectoryWriter> open_xtc_writer(const std::filesystem::path& path, int n_atoms,
                                                  double precision);
Trajectory read_xtc(const std::filesystem::path& path, std::optional<int> n_atoms);

std::unique_ptr<TrajectoryWriter> open_dcd_writer(const std::filesystem::path& path, int n_atoms,
                                                  const std::string& title);
Trajectory read_dcd(const std::filesystem::path& path, std::optional<int> n_atoms);

}  // namespace trails::trajio::detail
