// The `pca_model` CV of a swarm's `cvs:` list (docs/swarm.md, "trails pca"): a model written by
// `trails pca` turns each frame into its first `components` principal components (default 4,
// PathGennie's unbinding CV), from the pocket CA – ligand heavy-atom distances with minimum
// images in the frame's box. Used by the swarm driver and `trails pca --from-pickle`.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "trails/core/python.h"
#include "trails/features/projection.h"
#include "trails/ligand_pca/pca_model.h"

namespace trails::swarm {

// Whether `cvs` (the config's list) holds a pca_model entry.
bool has_pca_model(const nlohmann::json& cvs);

// `cvs` must be exactly one entry {name, kind: pca_model, file, components}; a `file` ending in
// .pkl is PathGennie's pca_model.pkl (read_pathgennie_pca; the entry then also gives
// `structure`, `ligand_selection` and `around_distance`, the pcagen.py inputs). `n_atoms`: the
// prepared system's atom count, which must be the model's. Throws ConfigError naming the entry
// (a missing or bad file, unknown keys, too many components, another atom count).
std::unique_ptr<features::Projection> make_pca_model_projection(
    const nlohmann::json& cvs, int n_atoms, const std::filesystem::path& config_dir,
    const core::PythonInterpreter& python);

// PathGennie's pca_model.pkl (pcagen.py: a joblib-saved scikit-learn PCA), its mean and
// components read by the Python worker (share/trails/pca_pickle.py, no scikit-learn needed),
// with the feature atoms that pcagen.py used: the pocket CA atoms within `around_distance` Å of
// `ligand_selection` in `structure`, and the ligand's heavy atoms. Throws InputError when the
// pickle is unreadable or its feature count is not n_CA × n_ligand.
ligand_pca::PcaModel read_pathgennie_pca(const std::filesystem::path& pickle,
                                         const std::filesystem::path& structure,
                                         const std::string& ligand_selection,
                                         double around_distance,
                                         const core::PythonInterpreter& python);

}  // namespace trails::swarm
