// The four trainers and the TorchScript writer (the only code that includes libtorch), behind
// torch-free signatures. train() (model.cpp) validates options and data before calling them.
#pragma once

#include <filesystem>
#include <string>

#include "trails/learned/model.h"
#include "trails/learned/network.h"

namespace trails::learned::detail {

// Each returns the evaluation-mode network whose output is the CV and fills record's losses,
// epochs (and SPIB's refinement fields); train() adds the VAMP-2 score.
Network train_tvae(const ModelOptions& options, const TrainingData& data, TrainingRecord& record);
Network train_vampnet(const ModelOptions& options, const TrainingData& data,
                      TrainingRecord& record);
Network train_spib(const ModelOptions& options, const TrainingData& data, TrainingRecord& record);
Network train_deep_tica(const ModelOptions& options, const TrainingData& data,
                        TrainingRecord& record);

// A TorchScript module whose forward(x) computes net on float64 rows (any float input is
// converted), written with torch::jit's own save.
void write_torchscript(const Network& net, const std::string& kind,
                       const std::filesystem::path& file);

}  // namespace trails::learned::detail

namespace trails::learned::detail {

// SPIB's initial states (k-means on the rows, k = max(2, min(spib_n_states, rows)), seeded by
// options.seed), numbered 0..k−1 as the trainer numbers them; exposed for the PyTorch replay.
std::vector<std::int64_t> spib_initial_labels(const ModelOptions& options,
                                              const TrainingData& data);

}  // namespace trails::learned::detail
