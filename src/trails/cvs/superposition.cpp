#include "trails/cvs/superposition.h"

#include <Eigen/LU>
#include <Eigen/SVD>
#include <cmath>

#include "trails/cvs/geometry.h"

namespace trails::cvs {

namespace {
Vec3 centroid(std::span<const double> xyz, std::span<const int> atoms) {
  Vec3 sum = Vec3::Zero();
  for (int a : atoms) sum += atom_position(xyz, a);
  return sum / double(atoms.size());
}
}  // namespace

RigidFit kabsch_fit(std::span<const double> mobile, std::span<const double> reference,
                    std::span<const int> fit_atoms) {
  RigidFit fit;
  fit.mobile_centroid = centroid(mobile, fit_atoms);
  fit.reference_centroid = centroid(reference, fit_atoms);
  // Covariance H = Σ (x − x̄)(y − ȳ)ᵀ; the optimal rotation is V·diag(1, 1, d)·Uᵀ with
  // H = U S Vᵀ and d = sign(det(V Uᵀ)) so that a reflection is never returned.
  Eigen::Matrix3d h = Eigen::Matrix3d::Zero();
  for (int a : fit_atoms) {
    h += (atom_position(mobile, a) - fit.mobile_centroid) *
         (atom_position(reference, a) - fit.reference_centroid).transpose();
  }
  const Eigen::JacobiSVD<Eigen::Matrix3d> svd(h, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Eigen::Matrix3d& u = svd.matrixU();
  const Eigen::Matrix3d& v = svd.matrixV();
  Eigen::Matrix3d d = Eigen::Matrix3d::Identity();
  if ((v * u.transpose()).determinant() < 0.0) d(2, 2) = -1.0;
  fit.rotation = v * d * u.transpose();
  return fit;
}

double rmsd_after_fit(std::span<const double> mobile, std::span<const double> reference,
                      std::span<const int> fit_atoms, std::span<const int> rmsd_atoms) {
  const RigidFit fit = kabsch_fit(mobile, reference, fit_atoms);
  double sum_sq = 0.0;
  for (int a : rmsd_atoms) {
    sum_sq += (fit.apply(atom_position(mobile, a)) - atom_position(reference, a)).squaredNorm();
  }
  return std::sqrt(sum_sq / double(rmsd_atoms.size()));
}

void fitted_coordinates(std::span<const double> mobile, std::span<const double> reference,
                        std::span<const int> fit_atoms, std::span<const int> out_atoms,
                        std::span<double> out) {
  const RigidFit fit = kabsch_fit(mobile, reference, fit_atoms);
  for (std::size_t n = 0; n < out_atoms.size(); ++n) {
    const Vec3 x = fit.apply(atom_position(mobile, out_atoms[n]));
    out[3 * n] = x.x();
    out[3 * n + 1] = x.y();
    out[3 * n + 2] = x.z();
  }
}

double radius_of_gyration(std::span<const double> xyz, std::span<const int> atoms,
                          std::span<const double> masses) {
  double total_weight = 0.0;
  Vec3 center = Vec3::Zero();
  for (int a : atoms) {
    const double w = masses.empty() ? 1.0 : masses[a];
    center += w * atom_position(xyz, a);
    total_weight += w;
  }
  center /= total_weight;
  double sum = 0.0;
  for (int a : atoms) {
    const double w = masses.empty() ? 1.0 : masses[a];
    sum += w * (atom_position(xyz, a) - center).squaredNorm();
  }
  return std::sqrt(sum / total_weight);
}

}  // namespace trails::cvs
