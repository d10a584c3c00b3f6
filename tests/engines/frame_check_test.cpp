// The engine-agnostic bond-length check of a frame (src/trails/engines/frame_check.h;
// docs/reliability.md, "Exploded frames").
#include "trails/engines/frame_check.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace trails::engines {
namespace {

// A water-like triple: O at the origin, H1 along x, H2 along y, 0.1 nm bonds.
const std::vector<Bond> kBonds{{0, 1, 0.1}, {0, 2, 0.1}};
std::vector<double> water() { return {0, 0, 0, 0.1, 0, 0, 0, 0.1, 0}; }

TEST(FrameCheck, LimitIsTwiceTheReferenceOrPlusATenthOfANanometre) {
  EXPECT_DOUBLE_EQ(bond_length_limit(0.1), 0.2);
  EXPECT_DOUBLE_EQ(bond_length_limit(0.3), 0.6);
  EXPECT_DOUBLE_EQ(bond_length_limit(0.05), 0.15);
}

TEST(FrameCheck, NormalFramePasses) {
  std::vector<double> x = water();
  x[3] = 0.19;  // stretched, but within the limit
  EXPECT_FALSE(first_broken_bond(kBonds, x).has_value());
  EXPECT_FALSE(first_broken_bond({}, x).has_value());  // no bonds, nothing to check
}

TEST(FrameCheck, StretchedBondFailsWithItsAtomsAndLength) {
  std::vector<double> x = water();
  x[7] = 3.2;  // H2 3.2 nm away
  const auto broken = first_broken_bond(kBonds, x);
  ASSERT_TRUE(broken.has_value());
  EXPECT_EQ(broken->bond.i, 0);
  EXPECT_EQ(broken->bond.j, 2);
  EXPECT_DOUBLE_EQ(broken->length, 3.2);
  EXPECT_DOUBLE_EQ(broken->limit, 0.2);
  const std::string why = describe(*broken, 150);
  EXPECT_NE(why.find("bond between atoms 0 and 2 is 3.2 nm long"), std::string::npos) << why;
  EXPECT_NE(why.find("reference 0.1 nm"), std::string::npos) << why;
  EXPECT_NE(why.find("at step 150: the molecule blew apart"), std::string::npos) << why;
}

TEST(FrameCheck, FirstBrokenBondIsReportedAndNanIsBroken) {
  std::vector<double> x = water();
  x[3] = 5.0;
  x[7] = 5.0;
  EXPECT_EQ(first_broken_bond(kBonds, x)->bond.j, 1);
  x = water();
  x[4] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(first_broken_bond(kBonds, x)->bond.j, 1);
  const std::vector<Bond> outside{{0, 3, 0.1}};  // atom 3 does not exist
  EXPECT_TRUE(first_broken_bond(outside, water()).has_value());
}

// O near x = 0, H just below x = L: across the boundary they are 0.1 nm apart.
TEST(FrameCheck, BondAcrossAPeriodicBoundaryPassesWithTheBoxOnly) {
  const double L = 2.0;
  const std::vector<double> x{0.04, 1.0, 1.0, L - 0.06, 1.0, 1.0};
  const std::vector<Bond> bond{{0, 1, 0.1}};
  const std::vector<double> box{L, 0, 0, 0, L, 0, 0, 0, L};
  EXPECT_FALSE(first_broken_bond(bond, x, box).has_value());
  const auto without = first_broken_bond(bond, x);
  ASSERT_TRUE(without.has_value());
  EXPECT_NEAR(without->length, L - 0.1, 1e-12);
  // Several boxes away is the same image.
  const std::vector<double> far{0.04, 1.0, 1.0, 3 * L - 0.06, 1.0 - 2 * L, 1.0 + L};
  EXPECT_FALSE(first_broken_bond(bond, far, box).has_value());
  // A really stretched bond still fails with the box: half a box apart.
  const std::vector<double> half{0.0, 1.0, 1.0, L / 2, 1.0, 1.0};
  EXPECT_TRUE(first_broken_bond(bond, half, box).has_value());
}

// A triclinic box (OpenMM reduced form: b and c lean along x): the partner's image lies along
// c, which is not a coordinate axis.
TEST(FrameCheck, TriclinicBoxUsesTheMinimumImage) {
  const std::vector<double> box{2.0, 0, 0, 0.8, 1.9, 0, -0.7, 0.6, 1.8};
  const std::vector<Bond> bond{{0, 1, 0.1}};
  const std::vector<double> base{0.5, 0.5, 0.05};
  std::vector<double> x = base;
  // The partner sits 0.1 nm from atom 0 along x, then is moved by -c (out of the box).
  x.insert(x.end(), {base[0] + 0.1 + 0.7, base[1] - 0.6, base[2] - 1.8});
  EXPECT_FALSE(first_broken_bond(bond, x, box).has_value());
  EXPECT_TRUE(first_broken_bond(bond, x).has_value());
  // And by a + b - c: still the same image.
  std::vector<double> y = base;
  y.insert(y.end(), {base[0] + 0.1 + 2.0 + 0.8 + 0.7, base[1] + 1.9 - 0.6, base[2] - 1.8});
  EXPECT_FALSE(first_broken_bond(bond, y, box).has_value());
}

// docs/reliability.md, "Non-finite values": the one rule exec::run_guarded applies to every
// engine's result, whatever wrote it.
SegmentResult ok_result() {
  SegmentResult r;
  r.status = SegmentStatus::Ok;
  r.n_atoms = 2;
  r.spatial_dim = 3;
  r.n_frames = 2;
  r.frames = {0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1};
  r.frame_boxes = std::vector<double>(18, 1.0);
  r.final_state.n_atoms = 2;
  r.final_state.spatial_dim = 3;
  r.final_state.positions = {0, 0, 0, 1, 1, 1};
  r.final_state.velocities = {0, 0, 0, 0, 0, 0};
  return r;
}

TEST(NonFinite, FiniteResultPasses) {
  SegmentResult r = ok_result();
  SegmentTask task;
  fail_if_non_finite(task, r);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.frames.size(), 12u);
}

TEST(NonFinite, EveryPartOfAResultIsChecked) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    void (*spoil)(SegmentResult&, double);
    double value;
    const char* reason;
  };
  const Case cases[] = {
      {[](SegmentResult& r, double v) { r.frames[10] = v; }, nan,
       "frame 1 holds a non-finite coordinate (nan at atom 1, y)"},
      {[](SegmentResult& r, double v) { r.frames[2] = v; }, -inf,
       "frame 0 holds a non-finite coordinate (-inf at atom 0, z)"},
      {[](SegmentResult& r, double v) { r.frame_boxes[12] = v; }, inf,
       "frame 1 has a non-finite box value (inf)"},
      {[](SegmentResult& r, double v) { r.final_state.positions[3] = v; }, nan,
       "final state: position of atom 1, x is nan"},
      {[](SegmentResult& r, double v) { r.final_state.velocities[1] = v; }, inf,
       "final state: velocity of atom 0, y is inf"},
  };
  for (const Case& c : cases) {
    SegmentResult r = ok_result();
    c.spoil(r, c.value);
    SegmentTask task;
    task.walker = 5;
    task.iteration = 2;
    fail_if_non_finite(task, r);
    EXPECT_FALSE(r.ok()) << c.reason;
    EXPECT_NE(r.error.find(std::string("walker 5 of iteration 2: ") + c.reason), std::string::npos)
        << r.error;
    EXPECT_TRUE(r.frames.empty() && r.frame_boxes.empty() && r.final_state.positions.empty())
        << "a failed result keeps nothing";
  }
}

TEST(NonFinite, StartConfigurationIsChecked) {
  Configuration start;
  start.n_atoms = 1;
  start.spatial_dim = 2;
  start.positions = {0.5, 1.0};
  EXPECT_FALSE(non_finite_start(start).has_value());
  start.positions[1] = -std::numeric_limits<double>::infinity();
  const auto why = non_finite_start(start);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(*why, "the start configuration is non-finite: position of atom 0, y is -inf");
}

}  // namespace
}  // namespace trails::engines
