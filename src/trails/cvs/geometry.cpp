#include "trails/cvs/geometry.h"

#include <Eigen/Geometry>
#include <cmath>

namespace trails::cvs {

Vec3 displacement(std::span<const double> xyz, int i, int j, const PeriodicBox* box) {
  const Vec3 d = atom_position(xyz, j) - atom_position(xyz, i);
  return box ? box->minimum_image(d) : d;
}

double distance(std::span<const double> xyz, int i, int j, const PeriodicBox* box) {
  return displacement(xyz, i, j, box).norm();
}

double angle(std::span<const double> xyz, int i, int j, int k, const PeriodicBox* box) {
  const Vec3 u = displacement(xyz, j, i, box);
  const Vec3 v = displacement(xyz, j, k, box);
  return std::atan2(u.cross(v).norm(), u.dot(v));
}

double dihedral(std::span<const double> xyz, int i, int j, int k, int l, const PeriodicBox* box) {
  const Vec3 b1 = displacement(xyz, i, j, box);
  const Vec3 b2 = displacement(xyz, j, k, box);
  const Vec3 b3 = displacement(xyz, k, l, box);
  const Vec3 n1 = b1.cross(b2);
  const Vec3 n2 = b2.cross(b3);
  const double phi = std::atan2(b2.norm() * b1.dot(n2), n1.dot(n2));
  return phi == -M_PI ? M_PI : phi;  // report the half-open range (−π, π]
}

}  // namespace trails::cvs
