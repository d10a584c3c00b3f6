// A swarm whose CVs are a campaign's stored learned model (`projection: {model: RUN_DIR,
// iteration: N}`, docs/swarm.md, "A learned model as the CV"): each frame goes through the
// features the model was trained on and then the model, by the same code as the campaign and
// `trails project` (spaces/stored_space_model.h), in C++ with no Python.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "trails/config/swarm_config.h"
#include "trails/engines/engine.h"
#include "trails/features/projection.h"

namespace trails::swarm {

struct LearnedCv {
  std::unique_ptr<features::Projection> projection;
  // Which model exactly (run, iteration, digest of its state and weights): it joins the swarm's
  // result-relevant configuration, so --resume refuses a model that changed.
  nlohmann::json identity;
};

// Throws core::ConfigError naming projection.model when the run holds no usable model or the
// model's features do not match the swarm's system: another engine kind (built-in coordinates
// against atoms), another coordinate or atom count, or feature atoms that resolve to other
// atoms on the swarm's topology.
LearnedCv make_learned_projection(const config::LearnedProjection& spec,
                                  const engines::Engine& engine);

}  // namespace trails::swarm
