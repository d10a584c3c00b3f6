// Write → read round trips for each format, and the facade's dispatch rules.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "test_support.h"
#include "trails/core/error.h"
#include "trails/trajio/trajectory.h"

namespace trails::trajio {
namespace {

using test::fresh_dir;
using test::make_frames;
using test::write_all;

void expect_positions_near(const std::vector<TrajectoryFrame>& want, const Trajectory& got,
                           double abs_tol, double rel_tol) {
  ASSERT_EQ(got.frames.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    ASSERT_EQ(got.frames[k].positions_nm.size(), want[k].positions_nm.size());
    for (std::size_t i = 0; i < want[k].positions_nm.size(); ++i) {
      const double w = want[k].positions_nm[i];
      ASSERT_NEAR(got.frames[k].positions_nm[i], w, abs_tol + rel_tol * std::abs(w))
          << "frame " << k << " coordinate " << i;
    }
  }
}

void expect_boxes_near(const std::vector<TrajectoryFrame>& want, const Trajectory& got,
                       double tol) {
  for (std::size_t k = 0; k < want.size(); ++k) {
    ASSERT_EQ(got.frames[k].box.has_value(), want[k].box.has_value()) << k;
    if (!want[k].box) continue;
    for (int i = 0; i < 9; ++i) EXPECT_NEAR((*got.frames[k].box)[i], (*want[k].box)[i], tol) << k;
  }
}

TEST(Xtc, RoundTripWithinPrecision) {
  const auto path = fresh_dir() / "a.xtc";
  const auto frames = make_frames(37, 6, true);
  write_all(path, frames);
  const Trajectory t = read_trajectory(path, 37);
  EXPECT_EQ(t.n_atoms, 37);
  // precision 1000 → rounding to 0.0005 nm, plus float representation.
  expect_positions_near(frames, t, 0.5e-3 + 1e-6, 0);
  expect_boxes_near(frames, t, 1e-6);  // the box is stored as plain floats
  for (std::size_t k = 0; k < frames.size(); ++k) {
    EXPECT_EQ(t.frames[k].step, frames[k].step);
    EXPECT_NEAR(t.frames[k].time_ps, frames[k].time_ps, 1e-6);
  }
}

TEST(Xtc, HigherPrecisionIsHonoured) {
  const auto path = fresh_dir() / "p.xtc";
  const auto frames = make_frames(20, 2, true);
  TrajectoryWriterOptions options;
  options.xtc_precision = 100000;
  write_all(path, frames, options);
  expect_positions_near(frames, read_trajectory(path), 5e-6 + 1e-6, 0);
}

TEST(Xtc, SmallSystemsAndNoBox) {
  // GROMACS stores ≤ 9 atoms uncompressed; an all-zero box reads back as "no box".
  const auto path = fresh_dir() / "s.xtc";
  const auto frames = make_frames(3, 4, false);
  write_all(path, frames);
  const Trajectory t = read_trajectory(path);
  expect_positions_near(frames, t, 0, 1e-7);
  expect_boxes_near(frames, t, 0);
}

TEST(Dcd, RoundTripAtFloatPrecision) {
  const auto path = fresh_dir() / "a.dcd";
  const auto frames = make_frames(41, 5, true);
  write_all(path, frames);
  const Trajectory t = read_trajectory(path, 41);
  EXPECT_EQ(t.n_atoms, 41);
  expect_positions_near(frames, t, 1e-7, 1.2e-7);  // float in Å: ~6e-8 relative
  expect_boxes_near(frames, t, 1e-9);              // unit cell is written as doubles
  for (std::size_t k = 0; k < frames.size(); ++k) {
    EXPECT_EQ(t.frames[k].step, frames[k].step);
    EXPECT_NEAR(t.frames[k].time_ps, frames[k].time_ps, 1e-6);
  }
  // Size is exactly header + frames (nothing stray): 92 + 92 + 12 header bytes.
  EXPECT_EQ(std::filesystem::file_size(path), 196u + 5u * (56u + 3u * (8u + 4u * 41u)));
}

TEST(Dcd, NoUnitCell) {
  const auto path = fresh_dir() / "n.dcd";
  const auto frames = make_frames(4, 3, false);
  write_all(path, frames);
  const Trajectory t = read_trajectory(path);
  expect_positions_near(frames, t, 1e-7, 1.2e-7);
  expect_boxes_near(frames, t, 0);
}

TEST(Dcd, OrthorhombicBoxStaysDiagonal) {
  const auto path = fresh_dir() / "o.dcd";
  auto frames = make_frames(5, 2, true);
  for (auto& f : frames) f.box = structure::Box{3, 0, 0, 0, 4, 0, 0, 0, 5};
  write_all(path, frames);
  const Trajectory t = read_trajectory(path);
  EXPECT_EQ(*t.frames[1].box, (structure::Box{3, 0, 0, 0, 4, 0, 0, 0, 5}));
}

// Byte-swaps every 32-bit word of a little-endian DCD we wrote (64-bit words in unit cells), which
// is exactly what a big-endian machine would have written.
std::vector<char> to_big_endian(std::vector<char> b, bool has_cell) {
  auto swap = [&](std::size_t at, int width) {
    for (int i = 0; i < width / 2; ++i) std::swap(b[at + i], b[at + width - 1 - i]);
  };
  std::size_t at = 0;
  int record = 0;
  while (at < b.size()) {
    std::int32_t len = 0;
    std::memcpy(&len, &b[at], 4);
    swap(at, 4);
    const std::size_t body = at + 4;
    if (record == 0) {
      for (std::size_t w = body + 4; w < body + 84; w += 4) swap(w, 4);  // keep "CORD"
    } else if (record == 1) {
      swap(body, 4);  // ntitle; the titles are characters
    } else if (has_cell && record >= 3 && (record - 3) % 4 == 0) {  // unit cell
      for (std::size_t w = body; w < body + 48; w += 8) swap(w, 8);
    } else {
      for (std::size_t w = body; w < body + static_cast<std::size_t>(len); w += 4) swap(w, 4);
    }
    swap(body + static_cast<std::size_t>(len), 4);
    at = body + static_cast<std::size_t>(len) + 4;
    ++record;
  }
  return b;
}

TEST(Dcd, ReadsBigEndianFiles) {
  const auto dir = fresh_dir();
  const auto frames = make_frames(12, 3, true);
  write_all(dir / "le.dcd", frames);
  test::write_bytes(dir / "be.dcd", to_big_endian(test::read_bytes(dir / "le.dcd"), true));
  ASSERT_NE(test::read_bytes(dir / "be.dcd"), test::read_bytes(dir / "le.dcd"));
  const Trajectory le = read_trajectory(dir / "le.dcd");
  const Trajectory be = read_trajectory(dir / "be.dcd");
  ASSERT_EQ(be.frames.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(be.frames[k].positions_nm, le.frames[k].positions_nm);
    EXPECT_EQ(*be.frames[k].box, *le.frames[k].box);
    EXPECT_EQ(be.frames[k].step, le.frames[k].step);
  }
}

TEST(Dcd, MixingBoxAndNoBoxIsAnError) {
  const auto path = fresh_dir() / "m.dcd";
  auto frames = make_frames(4, 2, true);
  frames[1].box.reset();
  auto w = open_trajectory_writer(path, 4);
  w->write(frames[0]);
  EXPECT_THROW(w->write(frames[1]), core::InputError);
}

TEST(Facade, DispatchesByExtensionCaseInsensitively) {
  EXPECT_EQ(trajectory_format_of("x/run.XTC"), TrajectoryFormat::Xtc);
  EXPECT_EQ(trajectory_format_of("run.dcd"), TrajectoryFormat::Dcd);
  EXPECT_THROW(trajectory_format_of("run.trr"), core::InputError);
  EXPECT_THROW(trajectory_format_of("run"), core::InputError);
}

TEST(Facade, WriterChecksAtomCounts) {
  const auto dir = fresh_dir();
  for (const char* name : {"w.xtc", "w.dcd"}) {
    EXPECT_THROW(open_trajectory_writer(dir / name, 0), core::InputError) << name;
    auto w = open_trajectory_writer(dir / name, 5);
    EXPECT_THROW(w->write(make_frames(4, 1, true)[0]), core::InputError) << name;
    w->write(make_frames(5, 1, true)[0]);
    EXPECT_EQ(w->frames_written(), 1);
    w->close();
    EXPECT_THROW(read_trajectory(dir / name, 6), core::InputError) << name;
    EXPECT_EQ(read_trajectory(dir / name, 5).frames.size(), 1u) << name;
  }
}

}  // namespace
}  // namespace trails::trajio

namespace trails::trajio {
namespace {

// libgromacs picks the format from the extension itself; an upper-case name must still work.
TEST(Xtc, UpperCaseExtension) {
  const auto path = test::fresh_dir() / "RUN.XTC";
  const auto frames = test::make_frames(12, 2, true);
  test::write_all(path, frames);
  EXPECT_EQ(read_trajectory(path, 12).frames.size(), 2u);
}

}  // namespace
}  // namespace trails::trajio
