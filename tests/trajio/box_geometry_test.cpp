#include <gtest/gtest.h>

#include <cmath>

#include "trails/core/error.h"
#include "trails/trajio/box_geometry.h"

using trails::structure::Box;
using trails::trajio::box_from_lengths_angles;
using trails::trajio::box_to_lengths_angles;
using trails::trajio::LengthsAngles;

TEST(BoxGeometry, OrthorhombicIsExact) {
  const Box box = box_from_lengths_angles({3.0, 4.0, 5.0, 90, 90, 90});
  EXPECT_EQ(box, (Box{3, 0, 0, 0, 4, 0, 0, 0, 5}));  // no cos(90°) residue
  const LengthsAngles c = box_to_lengths_angles(box);
  EXPECT_DOUBLE_EQ(c.a_nm, 3.0);
  EXPECT_DOUBLE_EQ(c.c_nm, 5.0);
  EXPECT_DOUBLE_EQ(c.alpha_deg, 90.0);
  EXPECT_DOUBLE_EQ(c.gamma_deg, 90.0);
}

TEST(BoxGeometry, RhombicDodecahedronKnownAnswer) {
  // GROMACS' xy-square rhombic dodecahedron for d = 1: a=(1,0,0) b=(0,1,0) c=(1/2,1/2,√2/2).
  const Box box{1, 0, 0, 0, 1, 0, 0.5, 0.5, std::sqrt(2.0) / 2};
  const LengthsAngles c = box_to_lengths_angles(box);
  EXPECT_NEAR(c.c_nm, 1.0, 1e-12);
  EXPECT_NEAR(c.alpha_deg, 60.0, 1e-10);
  EXPECT_NEAR(c.beta_deg, 60.0, 1e-10);
  EXPECT_NEAR(c.gamma_deg, 90.0, 1e-10);
  const Box back = box_from_lengths_angles(c);
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(back[i], box[i], 1e-12) << i;
}

TEST(BoxGeometry, TriclinicReducedFormRoundTrips) {
  const Box box{5.0, 0, 0, 1.2, 4.5, 0, -0.8, 1.1, 4.25};
  const Box back = box_from_lengths_angles(box_to_lengths_angles(box));
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(back[i], box[i], 1e-12) << i;
}

TEST(BoxGeometry, RejectsDegenerateCells) {
  EXPECT_THROW(box_to_lengths_angles(Box{}), trails::core::InputError);
  EXPECT_THROW(box_from_lengths_angles({1, 1, 0, 90, 90, 90}), trails::core::InputError);
  EXPECT_THROW(box_from_lengths_angles({1, 1, 1, 10, 10, 150}), trails::core::InputError);
}
