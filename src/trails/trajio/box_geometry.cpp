#include "trails/trajio/box_geometry.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "trails/core/error.h"

namespace trails::trajio {
namespace {

double dot(const structure::Box& m, int i, int j) {
  return m[3 * i] * m[3 * j] + m[3 * i + 1] * m[3 * j + 1] + m[3 * i + 2] * m[3 * j + 2];
}

double angle_deg(double cosine) {
  return std::acos(std::clamp(cosine, -1.0, 1.0)) * 180.0 / std::numbers::pi;
}

// cos of an angle in degrees, exactly 0 at 90 so orthorhombic boxes stay orthorhombic.
double cos_deg(double deg) { return deg == 90.0 ? 0.0 : std::cos(deg * std::numbers::pi / 180.0); }
double sin_deg(double deg) { return deg == 90.0 ? 1.0 : std::sin(deg * std::numbers::pi / 180.0); }

}  // namespace

LengthsAngles box_to_lengths_angles(const structure::Box& box) {
  const double a = std::sqrt(dot(box, 0, 0));
  const double b = std::sqrt(dot(box, 1, 1));
  const double c = std::sqrt(dot(box, 2, 2));
  if (!(a > 0) || !(b > 0) || !(c > 0)) {
    throw core::InputError("box has a zero-length vector; cannot express it as lengths and angles");
  }
  LengthsAngles out;
  out.a_nm = a;
  out.b_nm = b;
  out.c_nm = c;
  out.alpha_deg = angle_deg(dot(box, 1, 2) / (b * c));
  out.beta_deg = angle_deg(dot(box, 0, 2) / (a * c));
  out.gamma_deg = angle_deg(dot(box, 0, 1) / (a * b));
  return out;
}

structure::Box box_from_lengths_angles(const LengthsAngles& cell) {
  if (!(cell.a_nm > 0) || !(cell.b_nm > 0) || !(cell.c_nm > 0)) {
    throw core::InputError("unit cell lengths must be positive (got " + std::to_string(cell.a_nm) +
                           ", " + std::to_string(cell.b_nm) + ", " + std::to_string(cell.c_nm) +
                           " nm)");
  }
  const double ca = cos_deg(cell.alpha_deg), cb = cos_deg(cell.beta_deg);
  const double cg = cos_deg(cell.gamma_deg), sg = sin_deg(cell.gamma_deg);
  const double cy = (ca - cb * cg) / sg;
  const double cz2 = 1.0 - cb * cb - cy * cy;
  if (!(sg > 0) || !(cz2 > 0)) {
    throw core::InputError("unit cell angles " + std::to_string(cell.alpha_deg) + ", " +
                           std::to_string(cell.beta_deg) + ", " + std::to_string(cell.gamma_deg) +
                           " degrees do not describe a cell with positive volume");
  }
  structure::Box box{};
  box[0] = cell.a_nm;
  box[3] = cell.b_nm * cg;
  box[4] = cell.b_nm * sg;
  box[6] = cell.c_nm * cb;
  box[7] = cell.c_nm * cy;
  box[8] = cell.c_nm * std::sqrt(cz2);
  return box;
}

}  // namespace trails::trajio
