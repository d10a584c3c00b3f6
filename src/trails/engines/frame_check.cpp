// The sanity checks of a segment's values (frame_check.h; docs/reliability.md, "Exploded frames",
// "Non-finite values").
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

// "atom 1, y" for value i of a row of atoms × dim values.
std::string atom_axis(std::size_t i, int dim) {
  const auto d = static_cast<std::size_t>(std::max(dim, 1));
  const std::size_t axis = i % d;
  return fmt::format("atom {}, {}", i / d,
                     axis < 3 ? std::string(1, "xyz"[axis]) : std::to_string(axis));
}

// "position of atom 1, y is -inf" for the first non-finite value of `values` (atoms × dim).
std::optional<std::string> first_non_finite(std::span<const double> values, int dim,
                                            const char* what) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      return fmt::format("{} of {} is {}", what, atom_axis(i, dim), values[i]);
    }
  }
  return std::nullopt;
}

std::optional<std::string> non_finite_box(std::span<const double> box, const char* where) {
  for (std::size_t i = 0; i < box.size(); ++i) {
    if (!std::isfinite(box[i])) return fmt::format("{} box value {} is {}", where, i, box[i]);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> non_finite_start(const Configuration& start) {
  if (auto p = first_non_finite(start.positions, start.spatial_dim, "position")) {
    return "the start configuration is non-finite: " + *p;
  }
  if (auto v = first_non_finite(start.velocities, start.spatial_dim, "velocity")) {
    return "the start configuration is non-finite: " + *v;
  }
  return non_finite_box(start.box, "the start configuration is non-finite:");
}

std::optional<std::string> non_finite_result(const SegmentResult& r) {
  if (!r.ok()) return std::nullopt;
  const auto frame_values =
      static_cast<std::size_t>(std::max(r.n_atoms, 0) * std::max(r.spatial_dim, 0));
  for (std::size_t i = 0; i < r.frames.size(); ++i) {
    if (std::isfinite(r.frames[i])) continue;
    const std::size_t frame = frame_values > 0 ? i / frame_values : 0;
    const std::size_t in_frame = frame_values > 0 ? i % frame_values : i;
    return fmt::format("frame {} holds a non-finite coordinate ({} at {})", frame, r.frames[i],
                       atom_axis(in_frame, r.spatial_dim));
  }
  for (std::size_t i = 0; i < r.frame_boxes.size(); ++i) {
    if (!std::isfinite(r.frame_boxes[i])) {
      return fmt::format("frame {} has a non-finite box value ({})", i / 9, r.frame_boxes[i]);
    }
  }
  const auto& f = r.final_state;
  if (auto p = first_non_finite(f.positions, f.spatial_dim, "position")) {
    return "final state: " + *p;
  }
  if (auto v = first_non_finite(f.velocities, f.spatial_dim, "velocity")) {
    return "final state: " + *v;
  }
  return non_finite_box(f.box, "final state:");
}

void fail_if_non_finite(const SegmentTask& task, SegmentResult& result) {
  const auto why = non_finite_result(result);
  if (!why) return;
  result.status = SegmentStatus::Failed;
  result.error = fmt::format(
      "walker {} of iteration {}: {}: the segment's output is not finite, so nothing of it is "
      "kept (reduce engine.dt or check the engine's program)",
      task.walker, task.iteration, *why);
  // Failed results carry no frames (docs/architecture.md, "Central contracts").
  std::vector<double>().swap(result.frames);
  std::vector<double>().swap(result.frame_boxes);
  result.n_frames = 0;
  result.final_state = Configuration{};
}

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
