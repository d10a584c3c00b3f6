#include "trails/engines/external/walker_outputs.h"

#include <algorithm>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/npy.h"
#include "trails/trajio/trajectory.h"

namespace trails::engines::external {

namespace fs = std::filesystem;

namespace {

core::NpyArray read_float_npy(const fs::path& file) {
  if (!fs::exists(file)) throw core::InputError(file.string() + ": the program did not write it");
  core::NpyArray a = core::read_npy(file);
  if (a.kind != 'f' || (a.item_size != 4 && a.item_size != 8)) {
    throw core::InputError(
        fmt::format("{}: dtype {} is not float64 or float32", file.string(), a.descr));
  }
  return a;
}

std::vector<double> as_doubles(const core::NpyArray& a) {
  std::vector<double> out(static_cast<std::size_t>(a.n_elements()));
  for (std::int64_t i = 0; i < a.n_elements(); ++i)
    out[static_cast<std::size_t>(i)] = a.float_at(i);
  return out;
}

WalkerFrames npy_frames(const fs::path& file, int n_atoms, int dim, std::int64_t expected) {
  const core::NpyArray a = read_float_npy(file);
  const std::int64_t per_frame = static_cast<std::int64_t>(n_atoms) * dim;
  const bool shape_ok = (a.shape.size() == 3 && a.shape[1] == n_atoms && a.shape[2] == dim) ||
                        (a.shape.size() == 2 && a.shape[1] == per_frame) ||
                        (a.shape.size() == 1 && per_frame == 1);
  if (!shape_ok) {
    throw core::InputError(fmt::format("{}: shape {}, expected (frames, {}, {})", file.string(),
                                       a.shape_text, n_atoms, dim));
  }
  const std::int64_t skip = leading_frames(file, a.shape[0], expected);
  std::vector<double> all = as_doubles(a);
  WalkerFrames out;
  out.n_frames = expected;
  out.positions.assign(all.begin() + skip * per_frame, all.end());
  return out;
}

WalkerFrames trajectory_frames(const fs::path& file, int n_atoms, std::int64_t expected) {
  if (!fs::exists(file)) throw core::InputError(file.string() + ": the program did not write it");
  const trajio::Trajectory traj = trajio::read_trajectory(file, n_atoms);
  const auto found = static_cast<std::int64_t>(traj.frames.size());
  const std::int64_t skip = leading_frames(file, found, expected);
  WalkerFrames out;
  out.n_frames = expected;
  const bool boxed = std::all_of(traj.frames.begin(), traj.frames.end(),
                                 [](const auto& f) { return f.box.has_value(); });
  for (auto f = traj.frames.begin() + skip; f != traj.frames.end(); ++f) {
    out.positions.insert(out.positions.end(), f->positions_nm.begin(), f->positions_nm.end());
    if (boxed) out.boxes.insert(out.boxes.end(), f->box->begin(), f->box->end());
  }
  return out;
}

}  // namespace

std::int64_t leading_frames(const fs::path& file, std::int64_t found, std::int64_t expected) {
  if (found == expected) return 0;
  if (found == expected + 1) return 1;
  throw core::InputError(fmt::format(
      "{}: {} frames, expected {} (steps / stride, or one more with the start frame first){}",
      file.string(), found, expected,
      found < expected ? "; the segment ended early or wrote too few frames" : ""));
}

WalkerFrames read_walker_frames(const fs::path& file, int n_atoms, int spatial_dim,
                                std::int64_t expected) {
  if (file.extension() == ".npy") return npy_frames(file, n_atoms, spatial_dim, expected);
  if (spatial_dim != 3) {
    throw core::InputError(fmt::format(
        "{}: a {}-dimensional point system writes its frames as .npy", file.string(), spatial_dim));
  }
  return trajectory_frames(file, n_atoms, expected);
}

std::vector<double> read_walker_array(const fs::path& file, std::size_t n_values) {
  const core::NpyArray a = read_float_npy(file);
  if (a.n_elements() != static_cast<std::int64_t>(n_values)) {
    throw core::InputError(fmt::format("{}: shape {} holds {} numbers, expected {}", file.string(),
                                       a.shape_text, a.n_elements(), n_values));
  }
  return as_doubles(a);
}

}  // namespace trails::engines::external
