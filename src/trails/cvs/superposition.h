// Optimal rigid superposition (Kabsch, Eigen 3×3 SVD) and the CVs built on it: RMSD after fit,
// fitted coordinates, radius of gyration. Positions are n_atoms × 3 doubles (nm); mobile and
// reference frames share the topology, so one index list addresses both. No periodic images:
// the molecule must be whole in both frames (as mdtraj.rmsd and MDAnalysis assume).
// Pure functions, thread-safe; atom indices are not range-checked here (CvSet validates them).
#pragma once

#include <Eigen/Core>
#include <span>

#include "trails/cvs/periodic_box.h"

namespace trails::cvs {

// x ↦ rotation·(x − mobile_centroid) + reference_centroid maps the mobile frame onto the
// reference; rotation is proper (det = +1).
struct RigidFit {
  Eigen::Matrix3d rotation = Eigen::Matrix3d::Identity();
  Vec3 mobile_centroid = Vec3::Zero();
  Vec3 reference_centroid = Vec3::Zero();

  Vec3 apply(const Vec3& x) const { return rotation * (x - mobile_centroid) + reference_centroid; }
};

// Unweighted least-squares fit of the `fit_atoms` of `mobile` onto the same atoms of `reference`
// (needs ≥ 1 atom; fewer than 3 non-collinear atoms leave the rotation partly arbitrary).
RigidFit kabsch_fit(std::span<const double> mobile, std::span<const double> reference,
                    std::span<const int> fit_atoms);

// RMSD (nm) over `rmsd_atoms` after superposing on `fit_atoms`. With equal lists this is
// mdtraj.rmsd(frame, reference, atom_indices=atoms).
double rmsd_after_fit(std::span<const double> mobile, std::span<const double> reference,
                      std::span<const int> fit_atoms, std::span<const int> rmsd_atoms);

// Writes the fitted positions of `out_atoms` (3 per atom, x y z, nm) into `out`, in the
// reference's frame (mdtraj Trajectory.superpose(reference, atom_indices=fit_atoms)).
void fitted_coordinates(std::span<const double> mobile, std::span<const double> reference,
                        std::span<const int> fit_atoms, std::span<const int> out_atoms,
                        std::span<double> out);

// Radius of gyration (nm) of `atoms` about their centre: sqrt(Σ w_i |r_i − r_c|² / Σ w_i), with
// w_i = masses[atom] (masses over all atoms of the topology) or w_i = 1 when masses is empty
// (mdtraj.compute_rg; MDAnalysis radius_of_gyration() is the mass-weighted form).
double radius_of_gyration(std::span<const double> xyz, std::span<const int> atoms,
                          std::span<const double> masses);

}  // namespace trails::cvs
