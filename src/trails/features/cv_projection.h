// The CV projection of a molecular run: a cvs::CvSet built from a config's `cvs:` list (JSON, as
// in docs/cvs.md) over the prepared system's topology, applied to frames in nm with their boxes.
// Used by every driver that projects molecular frames (campaigns and swarms).
// Throws core::ConfigError naming the `cvs[i]` entry for a bad spec or selection.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/features/projection.h"
#include "trails/structure/topology.h"

namespace trails::features {

// A run's per-frame boxes (n_frames × 9, vectors as rows; empty: no box) as CvSet::compute takes
// them: empty when the system has none, else one box per frame.
std::vector<std::optional<structure::Box>> frame_boxes(std::span<const double> boxes,
                                                       std::int64_t n_frames);

// `cvs`: the `cvs:` list, or null for Trails-MD's fallback [Rg, RMSD] of the protein.
// `reference_positions`: the default reference of rmsd, fitted_coords and q (n_atoms × 3, nm);
// replaced by `conf_file`'s coordinates when that is a PDB/GRO of the same atom count.
// Relative `reference:` paths resolve against `config_dir`.
std::unique_ptr<Projection> make_cv_projection(
    const nlohmann::json& cvs, const structure::Topology& topology,
    std::vector<double> reference_positions, const std::optional<std::filesystem::path>& conf_file,
    const std::filesystem::path& config_dir);

}  // namespace trails::features
