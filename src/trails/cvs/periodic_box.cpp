#include "trails/cvs/periodic_box.h"

#include <cmath>
#include <string>

#include "trails/core/error.h"

namespace trails::cvs {

namespace {
// Box vectors read from single-precision files may carry tiny non-zero upper elements.
constexpr double kZeroTolerance_nm = 1e-6;
}  // namespace

PeriodicBox::PeriodicBox(const structure::Box& box) {
  a_ = Vec3(box[0], box[1], box[2]);
  b_ = Vec3(box[3], box[4], box[5]);
  c_ = Vec3(box[6], box[7], box[8]);
  if (std::abs(a_.y()) > kZeroTolerance_nm || std::abs(a_.z()) > kZeroTolerance_nm ||
      std::abs(b_.z()) > kZeroTolerance_nm) {
    throw core::InputError(
        "periodic box is not in reduced triclinic form (a along x, b in the xy plane): a = (" +
        std::to_string(a_.x()) + ", " + std::to_string(a_.y()) + ", " + std::to_string(a_.z()) +
        "), b = (" + std::to_string(b_.x()) + ", " + std::to_string(b_.y()) + ", " +
        std::to_string(b_.z()) + ") nm; rotate the box as GROMACS and OpenMM do");
  }
  a_.y() = a_.z() = b_.z() = 0.0;
  if (!(a_.x() > 0.0) || !(b_.y() > 0.0) || !(c_.z() > 0.0)) {
    throw core::InputError("periodic box has a non-positive diagonal element (a_x = " +
                           std::to_string(a_.x()) + ", b_y = " + std::to_string(b_.y()) +
                           ", c_z = " + std::to_string(c_.z()) + " nm)");
  }
  c_ -= b_ * std::round(c_.y() / b_.y());
  c_ -= a_ * std::round(c_.x() / a_.x());
  b_ -= a_ * std::round(b_.x() / a_.x());
  orthorhombic_ = b_.x() == 0.0 && c_.x() == 0.0 && c_.y() == 0.0;
}

Vec3 PeriodicBox::minimum_image(const Vec3& d) const {
  if (orthorhombic_) {
    return Vec3(d.x() - a_.x() * std::round(d.x() / a_.x()),
                d.y() - b_.y() * std::round(d.y() / b_.y()),
                d.z() - c_.z() * std::round(d.z() / c_.z()));
  }
  Vec3 r = d;
  r -= c_ * std::round(r.z() / c_.z());
  r -= b_ * std::round(r.y() / b_.y());
  r -= a_ * std::round(r.x() / a_.x());
  // The brick-reduced vector need not be the shortest in a skewed cell; one ring of neighbouring
  // images is enough for a reduced box. Fixed loop order and strict '<' keep ties deterministic.
  Vec3 best = r;
  double best_sq = r.squaredNorm();
  for (int i = -1; i <= 1; ++i) {
    for (int j = -1; j <= 1; ++j) {
      for (int k = -1; k <= 1; ++k) {
        if (i == 0 && j == 0 && k == 0) continue;
        const Vec3 t = r + double(i) * a_ + double(j) * b_ + double(k) * c_;
        const double t_sq = t.squaredNorm();
        if (t_sq < best_sq) {
          best_sq = t_sq;
          best = t;
        }
      }
    }
  }
  return best;
}

}  // namespace trails::cvs
