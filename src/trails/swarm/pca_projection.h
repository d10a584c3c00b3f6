// The `pca_model` CV of a swarm's `cvs:` list (docs/swarm.md, "trails pca"): a model written by
// `trails pca` turns each frame into its first `components` principal components (default 4,
// PathGennie's unbinding CV), from the pocket CA – ligand heavy-atom distances with minimum
// images in the frame's box. Private to the swarm module.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "trails/features/projection.h"

namespace trails::swarm {

// Whether `cvs` (the config's list) holds a pca_model entry.
bool has_pca_model(const nlohmann::json& cvs);

// `cvs` must be exactly one entry {name, kind: pca_model, file, components}. `n_atoms`: the
// prepared system's atom count, which must be the model's. Throws ConfigError naming the entry
// (a missing or bad file, unknown keys, too many components, another atom count).
std::unique_ptr<features::Projection> make_pca_model_projection(
    const nlohmann::json& cvs, int n_atoms, const std::filesystem::path& config_dir);

}  // namespace trails::swarm
