// Trajectory files: one frame record and a format-neutral writer/reader, dispatched by the file
// extension (.xtc through libgromacs, .dcd implemented in dcd.cpp). Units in the API are always
// nm and ps; formats convert on the way (DCD stores Å). Positions are n_atoms × 3 doubles,
// row-major. Errors: every problem with a file (missing, truncated, wrong atom count, unknown
// extension) is a core::InputError naming the file (and the frame where it applies); nothing is
// printed or aborted. A writer is single-threaded; distinct writers/readers on distinct files may
// run concurrently except for XTC, whose libgromacs layer keeps a global file table (serialize XTC
// use).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trails/structure/topology.h"

namespace trails::trajio {

struct TrajectoryFrame {
  std::vector<double> positions_nm;   // n_atoms * 3, x0 y0 z0 x1 ...
  std::optional<structure::Box> box;  // rows a, b, c in nm (triclinic allowed)
  double time_ps = 0.0;
  std::int64_t step = 0;
};

struct Trajectory {
  int n_atoms = 0;
  std::vector<TrajectoryFrame> frames;
};

enum class TrajectoryFormat { Xtc, Dcd };

struct TrajectoryWriterOptions {
  // XTC: coordinates are rounded to 1/precision nm (1000 = GROMACS default, 0.001 nm).
  double xtc_precision = 1000.0;
  // DCD: the title record (at most 80 characters are kept).
  std::string dcd_title = "Created by Trails";
};

class TrajectoryWriter {
 public:
  virtual ~TrajectoryWriter() = default;
  // Appends one frame. Throws InputError if positions_nm.size() != 3 * n_atoms, or (DCD) if a
  // frame has a box when the first did not or vice versa (DCD fixes the unit-cell flag per file).
  virtual void write(const TrajectoryFrame& frame) = 0;
  // Flushes and closes; further writes throw. The destructor closes too but swallows errors.
  virtual void close() = 0;
  virtual int n_atoms() const = 0;
  virtual std::int64_t frames_written() const = 0;
};

// The format a path's extension names (.xtc, .dcd; case-insensitive). Throws InputError otherwise.
TrajectoryFormat trajectory_format_of(const std::filesystem::path& path);

// Creates (truncates) `path`. Throws InputError for an unknown extension, n_atoms < 1, or a file
// that cannot be created.
std::unique_ptr<TrajectoryWriter> open_trajectory_writer(
    const std::filesystem::path& path, int n_atoms, const TrajectoryWriterOptions& options = {});

// Reads every frame. When n_atoms is given, a file with another atom count is an InputError.
Trajectory read_trajectory(const std::filesystem::path& path,
                           std::optional<int> n_atoms = std::nullopt);

}  // namespace trails::trajio
