// Ligand poses around a rigid protein (docs/swarm.md, "trails pca"; as PathGennie's): each
// attempt rotates the ligand about its centroid by a Haar-uniform random rotation (PathGennie
// drew angle and axis uniformly, which is not uniform on SO(3)), translates it by a vector
// uniform in a ball of max_radius, and keeps the pose unless a ligand atom comes closer than
// clash to a protein atom, every ligand atom is farther than max_distance from the protein, or
// its plain coordinate RMSD (no superposition) to an accepted pose is below rmsd_threshold.
// Attempt a draws from its own stream Rng::stream(seed, "pca-pose", a) (PathGennie's forked
// workers shared one unseeded state, so they proposed the same poses), so the poses are a pure
// function of the inputs and the seed. Lengths in Å.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace trails::ligand_pca {

struct PoseOptions {
  int n_conformations = 10000;    // unique poses wanted
  double max_radius = 50.0;       // Å, translation ball
  double clash = 1.0;             // Å, closest protein-ligand approach allowed
  double max_distance = 10.0;     // Å, some ligand atom must be this close to the protein
  double rmsd_threshold = 1.0;    // Å, uniqueness
  std::int64_t max_attempts = 0;  // 0: 10 × n_conformations
  std::uint64_t seed = 0;
};

struct Poses {
  std::vector<std::vector<double>> poses;  // accepted, in attempt order; ligand xyz (Å)
  std::int64_t attempts = 0;
};

// protein, ligand: xyz (Å) of the protein atoms (clash and distance checks) and of every ligand
// atom (the rigid body moved).
Poses generate_poses(std::span<const double> protein, std::span<const double> ligand,
                     const PoseOptions& options);

}  // namespace trails::ligand_pca
