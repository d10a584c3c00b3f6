// Periodic minimum image for orthorhombic and triclinic boxes (GROMACS/OpenMM reduced form:
// a along x, b in the xy plane). Used by every CV that measures a displacement. Values are nm;
// a PeriodicBox is immutable and safe to share between threads. Construction throws
// core::InputError for a box that is not lower-triangular or has a non-positive diagonal.
#pragma once

#include <Eigen/Core>

#include "trails/structure/topology.h"

namespace trails::cvs {

using Vec3 = Eigen::Vector3d;

class PeriodicBox {
 public:
  // Rows of `box` are a, b, c. A box whose b or c leans more than half a cell is reduced first
  // (c -= b·round(c_y/b_y), c -= a·round(c_x/a_x), b -= a·round(b_x/a_x)): the same lattice, so
  // the minimum image is unchanged, but the neighbour search below is then exact.
  explicit PeriodicBox(const structure::Box& box);

  // The shortest lattice translate of d (nm). Orthorhombic: per-axis rounding. Triclinic:
  // rounding along c, then b, then a, then a search of the neighbouring images (the 26 nearest
  // for ordinary cells; further for very flat or skewed ones, as far as needed to be exact).
  Vec3 minimum_image(const Vec3& d) const;

  bool is_orthorhombic() const { return orthorhombic_; }
  const Vec3& a() const { return a_; }
  const Vec3& b() const { return b_; }
  const Vec3& c() const { return c_; }
  // Images searched along a, b, c around the brick-reduced vector (1 = the 26 neighbours).
  int search_reach(int axis) const { return reach_[axis]; }

 private:
  Vec3 a_, b_, c_;
  Vec3 inverse_diagonal_;  // 1/a_x, 1/b_y, 1/c_z
  bool orthorhombic_ = true;
  int reach_[3] = {1, 1, 1};  // image search range along a, b, c
};

}  // namespace trails::cvs
