// The space_mode table's two families (space_model.h); for spaces/*.cpp only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "trails/spaces/space_model.h"

namespace trails::spaces {

std::unique_ptr<SpaceTrainer> make_linear_trainer(const std::string& mode);
std::unique_ptr<SpaceTrainer> make_neural_trainer(const std::string& mode,
                                                  const config::LearnedModelConfig& model,
                                                  std::uint64_t seed);

}  // namespace trails::spaces
