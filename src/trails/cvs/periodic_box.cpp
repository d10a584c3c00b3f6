#include "trails/cvs/periodic_box.h"

#include <Eigen/LU>
#include <algorithm>
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
    throw core::InputError(
        "periodic box has a non-positive diagonal element (a_x = " + std::to_string(a_.x()) +
        ", b_y = " + std::to_string(b_.y()) + ", c_z = " + std::to_string(c_.z()) + " nm)");
  }
  c_ -= b_ * std::round(c_.y() / b_.y());
  c_ -= a_ * std::round(c_.x() / a_.x());
  b_ -= a_ * std::round(b_.x() / a_.x());
  orthorhombic_ = b_.x() == 0.0 && c_.x() == 0.0 && c_.y() == 0.0;
  inverse_diagonal_ = Vec3(1.0 / a_.x(), 1.0 / b_.y(), 1.0 / c_.z());
  if (orthorhombic_) return;
  // How far the search around the brick-reduced vector r must reach to be exact. r lies in the
  // brick |r_x| ≤ a_x/2, |r_y| ≤ b_y/2, |r_z| ≤ c_z/2, so |r| ≤ ρ (half its diagonal); a shorter
  // image v = r + n·(a, b, c) has |v| ≤ ρ, hence |n_k| = |w_k·(v − r)| ≤ ‖w_k‖ρ + Σ_i |w_ki| h_i,
  // w_k the rows of the inverse cell. For ordinary boxes this is 1 (the 26 neighbours); very flat
  // or skewed cells need a wider, still exact, search.
  Eigen::Matrix3d cell;
  cell.col(0) = a_;
  cell.col(1) = b_;
  cell.col(2) = c_;
  const Eigen::Matrix3d inverse = cell.inverse();
  const Vec3 half(a_.x() / 2, b_.y() / 2, c_.z() / 2);
  const double rho = half.norm();
  for (int k = 0; k < 3; ++k) {
    const double bound = inverse.row(k).norm() * rho + inverse.row(k).cwiseAbs().dot(half);
    reach_[k] = std::max(1, int(std::floor(bound * (1.0 + 1e-12))));
  }
}

Vec3 PeriodicBox::minimum_image(const Vec3& d) const {
  // nearbyint (ties to even) instead of round: a tie is half a cell, where both images are
  // equally short, and nearbyint compiles to one instruction.
  if (orthorhombic_) {
    return Vec3(d.x() - a_.x() * std::nearbyint(d.x() * inverse_diagonal_.x()),
                d.y() - b_.y() * std::nearbyint(d.y() * inverse_diagonal_.y()),
                d.z() - c_.z() * std::nearbyint(d.z() * inverse_diagonal_.z()));
  }
  Vec3 r = d;
  r -= c_ * std::nearbyint(r.z() * inverse_diagonal_.z());
  r -= b_ * std::nearbyint(r.y() * inverse_diagonal_.y());
  r -= a_ * std::nearbyint(r.x() * inverse_diagonal_.x());
  // The brick-reduced vector need not be the shortest in a skewed cell: search the images within
  // reach_ (see the constructor). In the triangular form c alone sets z and b, c set y, which
  // prunes most candidates early. Fixed loop order and strict '<' keep ties deterministic.
  Vec3 best = r;
  double best_sq = r.squaredNorm();
  for (int k = -reach_[2]; k <= reach_[2]; ++k) {
    const double z = r.z() + k * c_.z();
    if (z * z >= best_sq) continue;
    for (int j = -reach_[1]; j <= reach_[1]; ++j) {
      const double y = r.y() + j * b_.y() + k * c_.y();
      if (z * z + y * y >= best_sq) continue;
      for (int i = -reach_[0]; i <= reach_[0]; ++i) {
        const double x = r.x() + i * a_.x() + j * b_.x() + k * c_.x();
        const double t_sq = x * x + y * y + z * z;
        if (t_sq < best_sq) {
          best_sq = t_sq;
          best = Vec3(x, y, z);
        }
      }
    }
  }
  return best;
}

}  // namespace trails::cvs
