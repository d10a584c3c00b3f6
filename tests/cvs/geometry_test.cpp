// Analytic checks of the geometry kernels: minimum image against a brute-force lattice search,
// box validation, angle and dihedral known values and the ±π wrap.
#include <gtest/gtest.h>

#include <Eigen/LU>

#include <cmath>
#include <random>
#include <vector>

#include "trails/core/error.h"
#include "trails/cvs/geometry.h"
#include "trails/cvs/periodic_box.h"

namespace trails::cvs {
namespace {

Eigen::Matrix3d cell_of(const structure::Box& b) {  // columns a, b, c
  Eigen::Matrix3d cell;
  cell << b[0], b[3], b[6], b[1], b[4], b[7], b[2], b[5], b[8];
  return cell;
}

// Exhaustive shortest vector of the coset d + lattice, independent of the code under test:
// start from d0 = d − cell·round(cell⁻¹d); any shorter image v has coefficients
// n = cell⁻¹(v − d0) with |n_k| ≤ ‖row_k(cell⁻¹)‖ · 2|d0|, so that finite range is complete.
Vec3 brute_force_minimum_image(const structure::Box& b, const Vec3& d) {
  const Eigen::Matrix3d cell = cell_of(b);
  const Eigen::Matrix3d inv = cell.inverse();
  const Vec3 f = inv * d;
  const Vec3 d0 = d - cell * Vec3(std::round(f[0]), std::round(f[1]), std::round(f[2]));
  int range[3];
  for (int k = 0; k < 3; ++k) range[k] = int(std::ceil(inv.row(k).norm() * 2 * d0.norm()));
  Vec3 best = d0;
  for (int i = -range[0]; i <= range[0]; ++i)
    for (int j = -range[1]; j <= range[1]; ++j)
      for (int k = -range[2]; k <= range[2]; ++k) {
        const Vec3 t = d0 + cell * Vec3(i, j, k);
        if (t.squaredNorm() < best.squaredNorm()) best = t;
      }
  return best;
}

void expect_minimum_image_matches_brute_force(const structure::Box& box) {
  const PeriodicBox periodic(box);
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> u(-4.0, 4.0);
  for (int n = 0; n < 400; ++n) {
    const Vec3 d(u(gen), u(gen), u(gen));
    const Vec3 ours = periodic.minimum_image(d);
    const Vec3 brute = brute_force_minimum_image(box, d);
    ASSERT_NEAR(ours.norm(), brute.norm(), 1e-12) << "d = " << d.transpose();
    // The result must be a lattice translate of d: same image class.
    const Vec3 shift = ours - d;
    const Vec3 frac = cell_of(box).inverse() * shift;
    for (int k = 0; k < 3; ++k) ASSERT_NEAR(frac[k], std::round(frac[k]), 1e-9);
  }
}

TEST(PeriodicBox, OrthorhombicIsPerAxisRounding) {
  const PeriodicBox box({2.0, 0, 0, 0, 3.0, 0, 0, 0, 4.0});
  EXPECT_TRUE(box.is_orthorhombic());
  const Vec3 r = box.minimum_image(Vec3(1.2, -1.6, 9.0));
  EXPECT_NEAR(r.x(), -0.8, 1e-15);
  EXPECT_NEAR(r.y(), 1.4, 1e-15);
  EXPECT_NEAR(r.z(), 1.0, 1e-15);
  expect_minimum_image_matches_brute_force({2.0, 0, 0, 0, 3.0, 0, 0, 0, 4.0});
}

TEST(PeriodicBox, ReducedTriclinicMatchesBruteForce) {
  expect_minimum_image_matches_brute_force({1.3, 0, 0, 0.55, 1.2, 0, -0.45, 0.5, 1.1});
  // Truncated octahedron and rhombic dodecahedron (GROMACS reduced forms), edge 2 nm.
  const double s = std::sqrt(2.0), t = std::sqrt(3.0), d = 2.0;
  expect_minimum_image_matches_brute_force(
      {d, 0, 0, d / 3, 2 * s * d / 3, 0, -d / 3, s * d / 3, s * t * d / 3});
  expect_minimum_image_matches_brute_force({d, 0, 0, 0, d, 0, d / 2, d / 2, s * d / 2});
}

TEST(PeriodicBox, StronglySkewedBoxIsReducedFirst) {
  // b leans by 1.7 a and c by more than one b: not reduced, the same lattice as a reduced box.
  expect_minimum_image_matches_brute_force({1.0, 0, 0, 1.7, 0.9, 0, 2.3, -1.4, 0.8});
  expect_minimum_image_matches_brute_force({1.5, 0, 0, 0.74, 0.3, 0, 0.7, 0.14, 0.35});
  expect_minimum_image_matches_brute_force({1.5, 0, 0, 0.74, 0.1, 0, 0.73, 0.04, 0.05});
  EXPECT_FALSE(PeriodicBox({1.0, 0, 0, 1.7, 0.9, 0, 2.3, -1.4, 0.8}).is_orthorhombic());
}

TEST(PeriodicBox, RejectsBoxNotInReducedForm) {
  EXPECT_THROW(PeriodicBox({1.0, 0.2, 0, 0, 1.0, 0, 0, 0, 1.0}), core::InputError);
  EXPECT_THROW(PeriodicBox({1.0, 0, 0, 0, 1.0, 0.3, 0, 0, 1.0}), core::InputError);
  EXPECT_THROW(PeriodicBox({1.0, 0, 0, 0, 0.0, 0, 0, 0, 1.0}), core::InputError);
  EXPECT_THROW(PeriodicBox({1.0, 0, 0, 0, 1.0, 0, 0, 0, -1.0}), core::InputError);
}

TEST(Geometry, DistanceUsesTheMinimumImage) {
  const std::vector<double> xyz = {0.1, 0.1, 0.1, 1.9, 0.1, 0.1};
  const PeriodicBox box({2.0, 0, 0, 0, 2.0, 0, 0, 0, 2.0});
  EXPECT_NEAR(distance(xyz, 0, 1, nullptr), 1.8, 1e-15);
  EXPECT_NEAR(distance(xyz, 0, 1, &box), 0.2, 1e-15);
}

TEST(Geometry, AngleKnownValues) {
  const std::vector<double> xyz = {1, 0, 0, 0, 0, 0, 0, 1, 0, -1, 1e-9, 0, 1, 1e-9, 0};
  EXPECT_NEAR(angle(xyz, 0, 1, 2, nullptr), M_PI / 2, 1e-15);
  EXPECT_NEAR(angle(xyz, 0, 1, 3, nullptr), M_PI - 1e-9, 1e-15);  // acos would lose this
  EXPECT_NEAR(angle(xyz, 0, 1, 4, nullptr), 1e-9, 1e-18);
}

// Four atoms with dihedral `phi`: b1 along y, b2 along x, the last atom rotated about x.
std::vector<double> dihedral_frame(double phi) {
  return {0, 1, 0, 0, 0, 0, 1, 0, 0, 1, std::cos(phi), std::sin(phi)};
}

TEST(Geometry, DihedralSignAndRange) {
  for (double phi : {0.3, -0.3, 1.2, -2.0, 2.9, -3.1}) {
    EXPECT_NEAR(dihedral(dihedral_frame(phi), 0, 1, 2, 3, nullptr), phi, 1e-13) << phi;
  }
  EXPECT_NEAR(dihedral(dihedral_frame(M_PI - 1e-9), 0, 1, 2, 3, nullptr), M_PI - 1e-9, 1e-13);
  EXPECT_NEAR(dihedral(dihedral_frame(-M_PI + 1e-9), 0, 1, 2, 3, nullptr), -M_PI + 1e-9, 1e-13);
  // Exactly trans: π, never −π (half-open range).
  const std::vector<double> trans = {0, 1, 0, 0, 0, 0, 1, 0, 0, 1, -1, 0};
  EXPECT_EQ(dihedral(trans, 0, 1, 2, 3, nullptr), M_PI);
  const std::vector<double> trans_neg_zero = {0, 1, 0, 0, 0, 0, 1, 0, 0, 1, -1, -0.0};
  EXPECT_EQ(dihedral(trans_neg_zero, 0, 1, 2, 3, nullptr), M_PI);
}

TEST(Geometry, DihedralAcrossABoxBoundary) {
  const double L = 3.0;
  std::vector<double> xyz = dihedral_frame(-1.1);
  const PeriodicBox box({L, 0, 0, 0.5, L, 0, -0.7, 0.4, L});
  std::vector<double> moved = xyz;
  moved[3 * 2 + 0] += L;  // shift atom 2 by a
  moved[3 * 3 + 0] += 0.5 - L;
  moved[3 * 3 + 1] += L;  // shift atom 3 by b − a
  EXPECT_NEAR(dihedral(moved, 0, 1, 2, 3, &box), -1.1, 1e-12);
}

}  // namespace
}  // namespace trails::cvs

namespace trails::cvs {
namespace {
TEST(PeriodicBox, SearchReachIsOneRingForOrdinaryCellsAndWiderForFlatOnes) {
  const double s = std::sqrt(2.0), t = std::sqrt(3.0), d = 2.0;
  const PeriodicBox octahedron(
      {d, 0, 0, d / 3, 2 * s * d / 3, 0, -d / 3, s * d / 3, s * t * d / 3});
  const PeriodicBox dodecahedron({d, 0, 0, 0, d, 0, d / 2, d / 2, s * d / 2});
  const PeriodicBox skewed({1.3, 0, 0, 0.55, 1.2, 0, -0.45, 0.5, 1.1});
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(octahedron.search_reach(k), 1) << k;
    EXPECT_EQ(dodecahedron.search_reach(k), 1) << k;
    EXPECT_EQ(skewed.search_reach(k), 1) << k;
  }
  const PeriodicBox flat({1.5, 0, 0, 0.74, 0.1, 0, 0.73, 0.04, 0.05});
  EXPECT_GT(flat.search_reach(0) + flat.search_reach(1) + flat.search_reach(2), 3);
}
}  // namespace
}  // namespace trails::cvs
