#include "trails/structure/box.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "trails/core/error.h"

namespace trails::structure {
namespace {

double cos_deg(double deg) {
  if (deg == 90.0) return 0.0;  // keep orthorhombic boxes exactly orthorhombic
  return std::cos(deg * std::numbers::pi / 180.0);
}

double sin_deg(double deg) {
  if (deg == 90.0) return 1.0;
  return std::sin(deg * std::numbers::pi / 180.0);
}

double norm(const double* v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }

double angle_deg(const double* u, const double* v) {
  const double nu = norm(u), nv = norm(v);
  if (nu == 0 || nv == 0) return 90.0;
  const double c = (u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / (nu * nv);
  if (c == 0.0) return 90.0;
  return std::acos(std::clamp(c, -1.0, 1.0)) * 180.0 / std::numbers::pi;
}

}  // namespace

Box box_from_parameters(const BoxParameters& p) {
  const auto bad = [&](const std::string& why) {
    return core::InputError(fmt::format("box a={} b={} c={} nm, alpha={} beta={} gamma={} deg: {}",
                                        p.a_nm, p.b_nm, p.c_nm, p.alpha_deg, p.beta_deg,
                                        p.gamma_deg, why));
  };
  if (!(p.a_nm > 0 && p.b_nm > 0 && p.c_nm > 0)) throw bad("box lengths must be positive");
  for (double angle : {p.alpha_deg, p.beta_deg, p.gamma_deg})
    if (!(angle > 0 && angle < 180)) throw bad("box angles must lie strictly between 0 and 180");
  const double ca = cos_deg(p.alpha_deg), cb = cos_deg(p.beta_deg), cg = cos_deg(p.gamma_deg);
  const double sg = sin_deg(p.gamma_deg);
  const double cx = p.c_nm * cb;
  const double cy = p.c_nm * (ca - cb * cg) / sg;
  const double cz2 = p.c_nm * p.c_nm - cx * cx - cy * cy;
  if (!(cz2 > 1e-12 * p.c_nm * p.c_nm))
    throw bad("these angles cannot form a box (zero or negative volume)");
  return Box{p.a_nm, 0.0, 0.0, p.b_nm * cg, p.b_nm * sg, 0.0, cx, cy, std::sqrt(cz2)};
}

BoxParameters box_parameters(const Box& box) {
  const double* a = box.data();
  const double* b = box.data() + 3;
  const double* c = box.data() + 6;
  return BoxParameters{norm(a),         norm(b),         norm(c),
                       angle_deg(b, c), angle_deg(a, c), angle_deg(a, b)};
}

bool box_is_zero(const Box& box) {
  for (double v : box)
    if (v != 0.0) return false;
  return true;
}

}  // namespace trails::structure
