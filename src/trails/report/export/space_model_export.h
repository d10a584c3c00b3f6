// A campaign's stored learned-space model, out of the run (docs/cvs.md, "Using a stored model"):
// `trails export RUN --model FILE.pt` writes a neural space's network as TorchScript with its
// input scaling beside it (FILE.json); `trails project RUN INPUT` projects feature rows, or the
// frames of a trajectory through the run's own features, through the model of a committed
// iteration. Read-only on the run directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

namespace trails::report {

struct SpaceModelRequest {
  std::filesystem::path run_dir;
  std::optional<std::int64_t> iteration;  // the model current at this committed iteration
                                          // (default: the last committed one)
  // trails project on a trajectory: the topology the run's feature atoms are resolved on, in
  // place of the run's prepared topology (docs/cvs.md, "Using a stored model").
  std::optional<std::filesystem::path> topology;
};

// FILE.json beside FILE.pt: what the network's input is, and where it comes from.
std::filesystem::path model_sidecar(const std::filesystem::path& pt);
// Writes the TorchScript module and its sidecar; returns the iteration whose model it is.
std::int64_t export_space_model(const SpaceModelRequest& request, const std::filesystem::path& pt);
// INPUT → a CSV of the learned CVs, one line per row or frame, headed by the run's CV names.
// INPUT is feature rows (a .npy of n × n_features, or a CSV with one row per line and an optional
// header) or a trajectory of the run's system (is_trajectory_file), whose frames go through the
// features the run computed (adaptive_feature_type over system.feature_selection) and then the
// model. Returns the row count. Throws core::InputError naming the file for rows of the wrong
// width, a trajectory of another atom count, or a run whose topology is missing.
std::int64_t project_to_csv(const SpaceModelRequest& request, const std::filesystem::path& input,
                            const std::filesystem::path& csv_out);

}  // namespace trails::report
