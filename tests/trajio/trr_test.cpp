// The TRR reader against files written by `gmx trjconv` (GROMACS 2022.5, float and double
// builds) from tests/data/gromacs/water3.gro: two frames of three atoms with a box and
// velocities. `gmx dump -f water3.trr` shows the same numbers (step 0 and 1, box 1.86206,
// x[0] = {0.126, 1.624, 1.679} then {0.226, ...}, v[2] = {-0.9045, -2.6469, 1.318}); the float
// file holds them rounded to float, the double file exactly as the GRO text reads.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "test_support.h"
#include "trails/core/error.h"
#include "trails/trajio/trr.h"

namespace trails::trajio {
namespace {

const std::filesystem::path kData = std::filesystem::path(TRAILS_TEST_DATA) / "gromacs";

template <typename Real>
void expect_water3(const TrrTrajectory& t) {
  ASSERT_EQ(t.n_atoms, 3);
  ASSERT_EQ(t.frames.size(), 2u);
  const std::vector<double> x0 = {0.126, 1.624, 1.679, 0.190, 1.661, 1.747, 0.177, 1.568, 1.613};
  const std::vector<double> v = {0.1227,  -0.0580, 0.0434,  0.8085, 0.3191,
                                 -0.7791, -0.9045, -2.6469, 1.3180};
  for (std::size_t f = 0; f < 2; ++f) {
    const TrrFrame& frame = t.frames[f];
    EXPECT_EQ(frame.step, static_cast<std::int64_t>(f));
    EXPECT_EQ(frame.double_precision, sizeof(Real) == 8);
    ASSERT_TRUE(frame.box.has_value());
    EXPECT_EQ((*frame.box)[0], static_cast<double>(static_cast<Real>(1.86206)));
    EXPECT_EQ((*frame.box)[1], 0.0);
    EXPECT_EQ((*frame.box)[8], static_cast<double>(static_cast<Real>(1.86206)));
    ASSERT_EQ(frame.positions.size(), 9u);
    ASSERT_EQ(frame.velocities.size(), 9u);
    EXPECT_TRUE(frame.forces.empty());
    for (std::size_t i = 0; i < 9; ++i) {
      const double x = (f == 1 && i == 0) ? 0.226 : x0[i];
      EXPECT_EQ(frame.positions[i], static_cast<double>(static_cast<Real>(x))) << f << " " << i;
      EXPECT_EQ(frame.velocities[i], static_cast<double>(static_cast<Real>(v[i]))) << f << i;
    }
  }
}

TEST(TrrReader, FloatFileFromGmxMatchesGmxDump) {
  expect_water3<float>(read_trr(kData / "water3.trr"));
}

TEST(TrrReader, DoubleFileFromGmxDMatchesGmxDump) {
  expect_water3<double>(read_trr(kData / "water3_double.trr", 3));
}

TEST(TrrReader, WrongAtomCountNamesTheFrame) {
  try {
    (void)read_trr(kData / "water3.trr", 4);
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("TRR frame 0"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("expected 4"), std::string::npos) << e.what();
  }
}

std::filesystem::path damaged_copy(std::size_t keep_bytes, std::size_t flip_at = SIZE_MAX) {
  std::ifstream in(kData / "water3.trr", std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  bytes.resize(std::min(bytes.size(), keep_bytes));
  if (flip_at < bytes.size()) bytes[flip_at] = static_cast<char>(bytes[flip_at] ^ 0x40);
  const auto path = test::fresh_dir() / "damaged.trr";
  std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<long>(bytes.size()));
  return path;
}

TEST(TrrReader, TruncatedLastFrameIsAnError) {
  // 192 bytes per frame: the second frame cut inside its velocities.
  try {
    (void)read_trr(damaged_copy(192 + 150));
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("TRR frame 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
}

TEST(TrrReader, BadMagicAndEmptyFilesAreErrors) {
  EXPECT_THROW((void)read_trr(damaged_copy(SIZE_MAX, 3)), core::InputError);
  EXPECT_THROW((void)read_trr(damaged_copy(0)), core::InputError);
  EXPECT_THROW((void)read_trr(kData / "missing.trr"), core::InputError);
}

// write_trr is what grompp -t reads: the bytes equal gmx trjconv's for the same frames.
TEST(TrrWriter, WritesTheBytesGmxTrjconvWrites) {
  const TrrTrajectory t = read_trr(kData / "water3.trr");
  const auto path = test::fresh_dir() / "copy.trr";
  write_trr(path, 3, t.frames);
  std::ifstream a(kData / "water3.trr", std::ios::binary), b(path, std::ios::binary);
  const std::string want((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>());
  const std::string got((std::istreambuf_iterator<char>(b)), std::istreambuf_iterator<char>());
  EXPECT_EQ(got, want);
  EXPECT_THROW(write_trr(path, 4, t.frames), core::InputError);
}

}  // namespace
}  // namespace trails::trajio
