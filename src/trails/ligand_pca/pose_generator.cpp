#include "trails/ligand_pca/pose_generator.h"

#include <array>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "trails/core/rng.h"

namespace trails::ligand_pca {
namespace {

using Vec = std::array<double, 3>;

// The protein atoms binned in cubic cells of edge max_distance: the clash and distance checks
// look at the 27 cells around a ligand atom only.
class ProteinGrid {
 public:
  ProteinGrid(std::span<const double> xyz, double cell) : xyz_(xyz), cell_(cell) {
    for (std::size_t a = 0; a * 3 < xyz.size(); ++a) cells_[key(cell_of(&xyz[3 * a]))].push_back(a);
  }
  // The smallest distance from p to a protein atom, if one is within `cell`; else +inf.
  double nearest(const Vec& p) const {
    double best = std::numeric_limits<double>::infinity();
    const auto c = cell_of(p.data());
    for (int dx = -1; dx <= 1; ++dx) {
      for (int dy = -1; dy <= 1; ++dy) {
        for (int dz = -1; dz <= 1; ++dz) {
          const auto it = cells_.find(key({c[0] + dx, c[1] + dy, c[2] + dz}));
          if (it == cells_.end()) continue;
          for (std::size_t a : it->second) {
            const double x = xyz_[3 * a] - p[0], y = xyz_[3 * a + 1] - p[1],
                         z = xyz_[3 * a + 2] - p[2];
            best = std::min(best, std::sqrt(x * x + y * y + z * z));
          }
        }
      }
    }
    return best;
  }

 private:
  std::array<std::int64_t, 3> cell_of(const double* p) const {
    return {static_cast<std::int64_t>(std::floor(p[0] / cell_)),
            static_cast<std::int64_t>(std::floor(p[1] / cell_)),
            static_cast<std::int64_t>(std::floor(p[2] / cell_))};
  }
  static std::uint64_t key(const std::array<std::int64_t, 3>& c) {
    // 21 bits per axis: cells of ≥ 1 Å cover ±10⁶ Å.
    const auto u = [](std::int64_t v) {
      return static_cast<std::uint64_t>(v + (1 << 20)) & 0x1FFFFF;
    };
    return (u(c[0]) << 42) | (u(c[1]) << 21) | u(c[2]);
  }

  std::span<const double> xyz_;
  double cell_;
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> cells_;
};

// A Haar-uniform rotation: a unit quaternion from four standard normals (uniform on S³).
std::array<double, 9> random_rotation(core::Rng& rng) {
  double q[4];
  double norm = 0.0;
  do {
    norm = 0.0;
    for (double& v : q) {
      v = rng.normal();
      norm += v * v;
    }
  } while (norm < 1e-12);
  norm = std::sqrt(norm);
  const double w = q[0] / norm, x = q[1] / norm, y = q[2] / norm, z = q[3] / norm;
  return {1 - 2 * (y * y + z * z), 2 * (x * y - z * w),     2 * (x * z + y * w),
          2 * (x * y + z * w),     1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
          2 * (x * z - y * w),     2 * (y * z + x * w),     1 - 2 * (x * x + y * y)};
}

// Uniform in the ball of radius r: rejection from the cube [−r, r]³.
Vec random_in_ball(core::Rng& rng, double r) {
  while (true) {
    const Vec t{(2 * rng.uniform() - 1) * r, (2 * rng.uniform() - 1) * r,
                (2 * rng.uniform() - 1) * r};
    if (t[0] * t[0] + t[1] * t[1] + t[2] * t[2] <= r * r) return t;
  }
}

}  // namespace

Poses generate_poses(std::span<const double> protein, std::span<const double> ligand,
                     const PoseOptions& o) {
  const std::size_t n = ligand.size() / 3;
  Vec centre{0, 0, 0};
  for (std::size_t a = 0; a < n; ++a) {
    for (int k = 0; k < 3; ++k) centre[k] += ligand[3 * a + k] / static_cast<double>(n);
  }
  const ProteinGrid grid(protein, std::max(o.max_distance, o.clash));
  const std::int64_t attempts =
      o.max_attempts > 0 ? o.max_attempts : 10 * static_cast<std::int64_t>(o.n_conformations);
  const double unique_sq = o.rmsd_threshold * o.rmsd_threshold * static_cast<double>(n);
  Poses out;
  std::vector<double> pose(ligand.size());
  for (std::int64_t a = 0; a < attempts && static_cast<int>(out.poses.size()) < o.n_conformations;
       ++a) {
    out.attempts = a + 1;
    core::Rng rng = core::Rng::stream(o.seed, "pca-pose", static_cast<std::uint64_t>(a));
    const auto r = random_rotation(rng);
    const Vec t = random_in_ball(rng, o.max_radius);
    double nearest = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < n; ++i) {
      Vec d{ligand[3 * i] - centre[0], ligand[3 * i + 1] - centre[1],
            ligand[3 * i + 2] - centre[2]};
      Vec p;
      for (int k = 0; k < 3; ++k) {
        p[k] = r[3 * k] * d[0] + r[3 * k + 1] * d[1] + r[3 * k + 2] * d[2] + centre[k] + t[k];
        pose[3 * i + k] = p[k];
      }
      nearest = std::min(nearest, grid.nearest(p));
      if (nearest < o.clash) break;
    }
    if (nearest < o.clash || !(nearest <= o.max_distance)) continue;
    // Plain RMSD (no superposition) to every accepted pose: O(accepted) per attempt.
    bool unique = true;
    for (const auto& other : out.poses) {
      double sq = 0.0;
      for (std::size_t i = 0; i < pose.size() && sq < unique_sq; ++i) {
        sq += (pose[i] - other[i]) * (pose[i] - other[i]);
      }
      if (sq < unique_sq) {
        unique = false;
        break;
      }
    }
    if (unique) out.poses.push_back(pose);
  }
  return out;
}

}  // namespace trails::ligand_pca
