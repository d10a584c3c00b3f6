// The inputs of bench/learned_pytorch.py, the same training written in PyTorch from Python
// (tests/learned compares loss curves with it, bench/learned_models times it): options.json,
// rows.npy (n × d float64), pairs.npy (pairs × 2) and, for spib, labels.npy (the initial
// k-means states).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>

#include "trails/learned/model.h"

namespace trails::learned {

nlohmann::json options_to_json(const ModelOptions& options);

// Creates dir and writes the four files; throws core::Error when it cannot.
void write_pytorch_replay_inputs(const ModelOptions& options, const TrainingData& data,
                                 const std::filesystem::path& dir);

}  // namespace trails::learned
