// CRYST1-style lengths/angles <-> box vectors, with analytic answers.
#include "trails/structure/box.h"

#include <gtest/gtest.h>

#include <cmath>

#include "trails/core/error.h"

namespace trails::structure {
namespace {

TEST(Box, RectangularIsExact) {
  const Box b = box_from_parameters({2.0, 3.0, 4.0, 90, 90, 90});
  EXPECT_EQ(b, (Box{2, 0, 0, 0, 3, 0, 0, 0, 4}));
  const BoxParameters p = box_parameters(b);
  EXPECT_EQ(p.a_nm, 2.0);
  EXPECT_EQ(p.c_nm, 4.0);
  EXPECT_EQ(p.alpha_deg, 90.0);
  EXPECT_EQ(p.beta_deg, 90.0);
  EXPECT_EQ(p.gamma_deg, 90.0);
}

TEST(Box, RhombicDodecahedronMatchesGromacsVectors) {
  // GROMACS's xy-square rhombic dodecahedron: a=b=c=d, alpha=beta=60, gamma=90 gives
  // (d,0,0), (0,d,0), (d/2, d/2, d*sqrt(2)/2).
  const double d = 3.0;
  const Box b = box_from_parameters({d, d, d, 60, 60, 90});
  const Box expected{d, 0, 0, 0, d, 0, d / 2, d / 2, d * std::sqrt(2.0) / 2};
  for (int i = 0; i < 9; ++i) EXPECT_NEAR(b[i], expected[i], 1e-12) << i;
}

TEST(Box, TruncatedOctahedronAndGeneralTriclinicRoundTrip) {
  for (const BoxParameters p :
       {BoxParameters{4.0, 4.0, 4.0, 70.528779, 109.471221, 70.528779},
        BoxParameters{2.0, 2.2, 2.4, 80, 95, 100}, BoxParameters{5.0, 6.0, 7.0, 120, 90, 60}}) {
    const Box b = box_from_parameters(p);
    EXPECT_EQ(b[1], 0.0);
    EXPECT_EQ(b[2], 0.0);
    EXPECT_EQ(b[5], 0.0);  // reduced form: a along x, b in the xy plane
    const BoxParameters q = box_parameters(b);
    EXPECT_NEAR(q.a_nm, p.a_nm, 1e-12);
    EXPECT_NEAR(q.b_nm, p.b_nm, 1e-12);
    EXPECT_NEAR(q.c_nm, p.c_nm, 1e-12);
    EXPECT_NEAR(q.alpha_deg, p.alpha_deg, 1e-9);
    EXPECT_NEAR(q.beta_deg, p.beta_deg, 1e-9);
    EXPECT_NEAR(q.gamma_deg, p.gamma_deg, 1e-9);
  }
}

TEST(Box, ImpossibleParametersAreInputErrors) {
  EXPECT_THROW(box_from_parameters({0, 1, 1, 90, 90, 90}), core::InputError);
  EXPECT_THROW(box_from_parameters({1, 1, 1, 0, 90, 90}), core::InputError);
  EXPECT_THROW(box_from_parameters({1, 1, 1, 180, 90, 90}), core::InputError);
  // Three 120-degree angles between unit vectors have zero volume.
  EXPECT_THROW(box_from_parameters({1, 1, 1, 120, 120, 120}), core::InputError);
}

}  // namespace
}  // namespace trails::structure
