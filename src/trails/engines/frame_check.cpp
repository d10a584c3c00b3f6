// The bond-length sanity check of a frame (frame_check.h; docs/reliability.md, "Exploded frames").
#include "trails/engines/frame_check.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace trails::engines {
namespace {

using Vec = std::array<double, 3>;

double norm(const Vec& d) { return std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]); }

// Subtracts n times box row r from d.
void shift(Vec& d, std::span<const double> box, int r, double n) {
  for (int k = 0; k < 3; ++k) d[k] -= n * box[3 * r + k];
}

// The minimum-image length of d in a reduced box: c, then b, then a remove the z, y, x
// offsets (as OpenMM does); a triclinic box can leave a shorter image among the neighbours of
// that one, so a length over the limit is confirmed against all 27 of them.
double minimum_image_length(Vec d, std::span<const double> box, double limit) {
  for (int r = 2; r >= 0; --r) {
    if (box[4 * r] > 0.0) shift(d, box, r, std::round(d[r] / box[4 * r]));
  }
  double best = norm(d);
  if (best <= limit) return best;
  for (int a = -1; a <= 1; ++a) {
    for (int b = -1; b <= 1; ++b) {
      for (int c = -1; c <= 1; ++c) {
        Vec e = d;
        shift(e, box, 0, a);
        shift(e, box, 1, b);
        shift(e, box, 2, c);
        best = std::min(best, norm(e));
      }
    }
  }
  return best;
}

}  // namespace

double bond_length_limit(double r0) { return std::max(2.0 * r0, r0 + 0.1); }

std::optional<BrokenBond> first_broken_bond(std::span<const Bond> bonds,
                                            std::span<const double> positions,
                                            std::span<const double> box) {
  const bool periodic = box.size() == 9;
  const auto n_atoms = static_cast<std::int64_t>(positions.size() / 3);
  for (const Bond& bond : bonds) {
    const double limit = bond_length_limit(bond.r0);
    if (bond.i < 0 || bond.j < 0 || bond.i >= n_atoms || bond.j >= n_atoms) {
      return BrokenBond{bond, std::numeric_limits<double>::infinity(), limit};
    }
    Vec d{};
    for (int k = 0; k < 3; ++k) {
      d[k] = positions[3 * static_cast<std::size_t>(bond.j) + k] -
             positions[3 * static_cast<std::size_t>(bond.i) + k];
    }
    const double length = periodic ? minimum_image_length(d, box, limit) : norm(d);
    // Written so that a NaN length counts as broken too.
    if (!(length <= limit)) return BrokenBond{bond, length, limit};
  }
  return std::nullopt;
}

std::string describe(const BrokenBond& broken, std::int64_t step) {
  return fmt::format(
      "bond between atoms {} and {} is {:.4g} nm long (reference {:.4g} nm, limit {:.4g} nm) at "
      "step {}: the molecule blew apart",
      broken.bond.i, broken.bond.j, broken.length, broken.bond.r0, broken.limit, step);
}

}  // namespace trails::engines
