// `trails pca` (docs/swarm.md, "trails pca"): PathGennie's unbinding CV builder.
// From one structure: the protein held rigid, ligand poses generated (pose_generator.h), the
// crystal pose appended last, each pose's features (distances from the pocket CA atoms — CA
// atoms within around_distance of any ligand atom in the input, minimum image when it has a box
// — to the ligand heavy atoms, Å, CA-major), and a PCA of them (mean-centred, no whitening,
// the n − 1 variance of scikit-learn, each component signed so its largest-|.| entry is
// positive). Deterministic: the same inputs and seed give the same model, bit for bit.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "trails/ligand_pca/pca_model.h"
#include "trails/ligand_pca/pose_generator.h"

namespace trails::ligand_pca {

struct BuildOptions {
  std::filesystem::path structure;  // PDB or GRO
  std::string protein_selection = "protein";
  std::string ligand_selection = "resname LIG";
  double around_distance = 20.0;  // Å
  int n_components = 10;
  double variance_threshold = 0.95;  // reported only
  PoseOptions poses;
};

struct BuildResult {
  PcaModel model;
  std::vector<std::vector<double>> poses;  // ligand xyz (Å) of every sample, crystal last
  std::int64_t attempts = 0;
  int components_for_threshold = 0;  // smallest k whose cumulative ratio reaches the threshold
};

// The atoms the features are made of, from one structure: the ligand's heavy atoms (columns) and
// the pocket CA atoms within around_distance Å of any ligand atom (rows; minimum image with a
// box). Throws core::InputError for a bad structure, an empty selection or no pocket CA atom;
// `ligand_key` names the selection's option in messages.
struct FeatureAtoms {
  int n_atoms = 0;
  std::vector<int> ca;
  std::vector<int> ligand_heavy;
  std::vector<int> ligand;  // every ligand atom
};
FeatureAtoms feature_atoms(const std::filesystem::path& structure,
                           const std::string& ligand_selection, double around_distance,
                           const std::string& ligand_key = "--ligand-sel");

// Throws core::InputError for a bad structure, an empty or overlapping selection, no pocket CA
// atom, or fewer than 2 samples.
BuildResult build_pca_model(const BuildOptions& options);

// The PCA of feature rows (n_samples × n_features, row-major), keeping n_components (at most
// the feature count). Fills mean, components, explained variance and ratio of `model`; returns
// the explained variance ratio of every component (all n_features).
std::vector<double> fit_feature_pca(std::span<const double> rows, int n_samples, int n_features,
                                    int n_components, PcaModel& model);

}  // namespace trails::ligand_pca
