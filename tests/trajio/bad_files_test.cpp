// Damaged and foreign files must become InputErrors naming the file (and frame), never an abort
// or a message from libgromacs.
#include <gtest/gtest.h>

#include "test_support.h"
#include "trails/core/error.h"
#include "trails/trajio/trajectory.h"

namespace trails::trajio {
namespace {

using test::fresh_dir;
using test::make_frames;
using test::read_bytes;
using test::write_all;
using test::write_bytes;

// Runs read_trajectory and returns the InputError message (fails the test if none is thrown).
std::string read_error(const std::filesystem::path& path) {
  try {
    read_trajectory(path);
  } catch (const core::InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError for " << path;
  return {};
}

void expect_mentions(const std::string& message, const std::string& what) {
  EXPECT_NE(message.find(what), std::string::npos) << "'" << what << "' not in: " << message;
}

class BadFiles : public ::testing::TestWithParam<const char*> {};

TEST_P(BadFiles, TruncatedFileNamesTheFrame) {
  const auto dir = fresh_dir();
  const auto path = dir / (std::string("t.") + GetParam());
  write_all(path, make_frames(30, 4, true));
  auto bytes = read_bytes(path);
  const std::size_t frame_bytes_guess = bytes.size() / 4;
  bytes.resize(bytes.size() - frame_bytes_guess / 2);  // cut inside frame 3
  write_bytes(path, bytes);
  const std::string m = read_error(path);
  expect_mentions(m, path.string());
  expect_mentions(m, "frame 3");
  expect_mentions(m, "truncated");
}

TEST_P(BadFiles, GarbageIsRejected) {
  const auto path = fresh_dir() / (std::string("g.") + GetParam());
  std::vector<char> bytes(4000);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>((i * 7919) % 251);
  write_bytes(path, bytes);
  expect_mentions(read_error(path), path.string());
}

TEST_P(BadFiles, EmptyAndMissingFiles) {
  const auto dir = fresh_dir();
  const auto empty = dir / (std::string("e.") + GetParam());
  write_bytes(empty, {});
  expect_mentions(read_error(empty), empty.string());
  const auto missing = dir / (std::string("missing.") + GetParam());
  expect_mentions(read_error(missing), missing.string());
}

TEST_P(BadFiles, UnwritableLocation) {
  const auto path = fresh_dir() / "no_such_dir" / (std::string("w.") + GetParam());
  try {
    open_trajectory_writer(path, 3);
    ADD_FAILURE() << "writer opened " << path;
  } catch (const core::InputError& e) {
    expect_mentions(e.what(), path.string());
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, BadFiles, ::testing::Values("xtc", "dcd"));

TEST(BadXtc, CorruptMagicInLaterFrame) {
  const auto path = fresh_dir() / "m.xtc";
  write_all(path, make_frames(30, 3, true));
  auto bytes = read_bytes(path);
  const std::size_t frame_bytes = bytes.size() / 3;  // equal-size frames are not guaranteed...
  // ...so find the second frame's magic (00 00 07 CB) instead of assuming the size.
  std::size_t at = 4;
  while (!(bytes[at] == 0 && bytes[at + 1] == 0 && bytes[at + 2] == 0x07 &&
           static_cast<unsigned char>(bytes[at + 3]) == 0xCB && at % 4 == 0)) {
    ++at;
  }
  ASSERT_LT(at, 2 * frame_bytes);
  bytes[at + 3] = 0;
  write_bytes(path, bytes);
  const std::string m = read_error(path);
  expect_mentions(m, "frame 1");
  expect_mentions(m, "magic");
}

TEST(BadDcd, WrongRecordMarkerNamesTheFrame) {
  const auto path = fresh_dir() / "r.dcd";
  write_all(path, make_frames(10, 3, true));
  auto bytes = read_bytes(path);
  const std::size_t header = 196, frame = 56 + 3 * (8 + 40);
  bytes[header + 2 * frame + 56] = 99;  // X record marker of frame 2
  write_bytes(path, bytes);
  const std::string m = read_error(path);
  expect_mentions(m, "frame 2");
  expect_mentions(m, "record marker");
}

}  // namespace
}  // namespace trails::trajio
