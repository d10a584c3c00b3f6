// A campaign's learned-space model read back from its run directory for use outside the
// campaign (docs/cvs.md, "Using a stored model"): `trails export --model`, `trails project` on
// feature rows or on a trajectory, and a swarm whose `projection:` names the model (docs/swarm.md,
// "A learned model as the CV"). With the model comes the run's own feature spec: the features it
// was trained on are rebuilt from the run's stored configuration and topology, so frames of the
// run's system project exactly as the campaign projected them. Read-only on the run directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/features/feature_source.h"
#include "trails/features/projection.h"
#include "trails/spaces/space_model.h"
#include "trails/structure/topology.h"

namespace trails::spaces {

struct StoredSpaceModel {
  std::filesystem::path run_dir;
  std::int64_t iteration = 0;             // the committed iteration whose current model this is
  nlohmann::json space;                   // that iteration's `space` state
  std::optional<nlohmann::json> element;  // the `space_model` element of a neural space
  std::unique_ptr<SpaceModel> model;
  std::vector<std::string> cv_names;  // tvae_0, … (the run's stored CV names)
  std::string feature_type;           // the model's input: "coordinates" for the built-in engine
  // The run's system (meta engine_system): molecular or not, n_atoms, spatial_dim.
  bool molecular = false;
  int n_atoms = 0;
  int spatial_dim = 3;
  // Molecular runs: the topology the feature atoms were resolved on, and those atoms.
  std::shared_ptr<const structure::Topology> topology;
  std::filesystem::path topology_file;
  std::vector<int> feature_atoms;
  std::shared_ptr<const features::FeatureSource> features;  // frames → the model's input rows
  std::string digest;     // of the space state and the weights: which model this is, exactly
  nlohmann::json config;  // the run's result-relevant configuration (its feature keys)
};

// The names of a learned space's CV columns: tvae_0, tvae_1, …, deep_tica_0 (docs/cvs.md), as
// the campaign records them.
std::vector<std::string> learned_cv_names(const std::string& mode, int dim);

// The model current at committed `iteration` (default: the last) of the campaign in `run_dir`,
// without its features. Throws core::InputError naming the run directory when it holds no
// committed iteration, core::UsageError for a fixed-CV campaign, an iteration out of range or a
// learned space that has no model yet, core::CorruptionError for elements this Trails cannot
// read. `iteration_key` names the iteration in messages (the CLI's --iteration, or a config key).
std::shared_ptr<StoredSpaceModel> load_stored_space_model(
    const std::filesystem::path& run_dir, std::optional<std::int64_t> iteration,
    std::string_view iteration_key = "--iteration");

// Rebuilds `features` (and, for a molecular run, `topology`, `topology_file`, `feature_atoms`)
// from the run's stored configuration: the built-in engine's coordinates, or
// adaptive_feature_type over system.feature_selection resolved on system.trajectory_topology_file
// when the run set one, else on its prepared topology. `topology` (a PDB or GRO of the run's
// system) stands in for the run's own, e.g. for a run directory copied without prepared/.
// Throws core::InputError naming the file when the topology is missing, unreadable or of another
// atom count.
void rebuild_run_features(StoredSpaceModel& stored,
                          const std::optional<std::filesystem::path>& topology = std::nullopt);

// Frames of the run's system (n_atoms × spatial_dim, boxes as features::Projection takes them)
// → the model's CVs: the run's features, then the model, row by row.
std::unique_ptr<features::Projection> make_stored_model_projection(
    std::shared_ptr<const StoredSpaceModel> stored);

}  // namespace trails::spaces
