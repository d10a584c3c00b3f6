// The ligand-pocket PCA model of `trails pca` (docs/swarm.md, "trails pca"; file format in
// docs/file-formats.md, "Ligand PCA model"): PathGennie's unbinding CV. Features are
// the distances (Å) from each pocket CA atom to each ligand heavy atom, CA-major (row-major
// n_ca × n_ligand); the model holds their mean, the principal components (rows) and the
// explained variances, and the atom indices so that a run computes the same features in the same
// order. `trails swarm` reads it as a `cvs:` entry of kind pca_model. Pure data and numerics.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

namespace trails::ligand_pca {

struct PcaModel {
  std::vector<int> ca_indices;                  // 0-based, the pocket CA atoms (feature rows)
  std::vector<int> ligand_indices;              // 0-based, the ligand heavy atoms (feature columns)
  int n_atoms = 0;                              // atoms of the structure the indices refer to
  std::vector<double> mean;                     // n_features
  std::vector<std::vector<double>> components;  // n_components × n_features (unit rows)
  std::vector<double> explained_variance;       // per component (n − 1 normalisation)
  std::vector<double> explained_variance_ratio;
  double n_samples = 0;
  nlohmann::json provenance;  // how it was built (structure, selections, options, seed)

  int n_features() const { return static_cast<int>(mean.size()); }
  int n_components() const { return static_cast<int>(components.size()); }
};

// The feature vector of one configuration (positions in nm, n_atoms × 3): |x_ca − x_lig| in Å,
// CA-major. With a box (9 values, rows a, b, c, nm) distances are minimum-image ones.
std::vector<double> ligand_features(const PcaModel& model, std::span<const double> positions_nm,
                                    std::span<const double> box = {});
// As above for explicit index lists (pose generation, before a model exists); appends to `out`.
void append_ligand_features(std::span<const int> ca, std::span<const int> ligand,
                            std::span<const double> positions_nm, std::span<const double> box,
                            std::vector<double>& out);

// z_k = (f − mean) · component_k for k < n_components.
std::vector<double> project_features(const PcaModel& model, std::span<const double> features,
                                     int n_components);

// The JSON file: same model → same bytes (numbers written to round trip exactly).
void write_pca_model(const std::filesystem::path& file, const PcaModel& model);
// Throws core::InputError naming the file and what is wrong (format, version, sizes).
PcaModel read_pca_model(const std::filesystem::path& file);

}  // namespace trails::ligand_pca
