// Shared helpers for the trajio tests: deterministic frames, written through the trajio writers.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "support/files.h"
#include "trails/trajio/trajectory.h"

namespace trails::trajio::test {

using test_support::fresh_dir;
using test_support::read_bytes;
using test_support::write_bytes;

// Frames with coordinates in [-2, 6) nm, a triclinic box (reduced form) and regular step/time.
inline std::vector<TrajectoryFrame> make_frames(int n_atoms, int n_frames, bool with_box,
                                                unsigned seed = 7) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-2.0, 6.0);
  std::vector<TrajectoryFrame> frames(static_cast<std::size_t>(n_frames));
  for (int k = 0; k < n_frames; ++k) {
    auto& f = frames[static_cast<std::size_t>(k)];
    f.positions_nm.resize(3 * static_cast<std::size_t>(n_atoms));
    for (double& x : f.positions_nm) x = u(gen);
    if (with_box) f.box = structure::Box{5.0 + 0.1 * k, 0, 0, 1.2, 4.5, 0, -0.8, 1.1, 4.25};
    f.step = 500 + 250 * k;
    f.time_ps = 1.0 + 0.5 * k;  // time = step * 0.002 ps
  }
  return frames;
}

inline void write_all(const std::filesystem::path& path, const std::vector<TrajectoryFrame>& frames,
                      const TrajectoryWriterOptions& options = {}) {
  auto w =
      open_trajectory_writer(path, static_cast<int>(frames.at(0).positions_nm.size() / 3), options);
  for (const auto& f : frames) w->write(f);
  w->close();
}

}  // namespace trails::trajio::test
