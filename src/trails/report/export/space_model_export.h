// A campaign's stored learned-space model, out of the run (docs/cvs.md, "Using a stored model"):
// `trails export RUN --model FILE.pt` writes a neural space's network as TorchScript with its
// input scaling beside it (FILE.json); `trails project RUN FEATURES` projects feature rows from
// a file through the model of a committed iteration. Read-only on the run directory.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>

namespace trails::report {

struct SpaceModelRequest {
  std::filesystem::path run_dir;
  std::optional<std::int64_t> iteration;  // the model current at this committed iteration
                                          // (default: the last committed one)
};

// FILE.json beside FILE.pt: what the network's input is, and where it comes from.
std::filesystem::path model_sidecar(const std::filesystem::path& pt);
// Writes the TorchScript module and its sidecar; returns the iteration whose model it is.
std::int64_t export_space_model(const SpaceModelRequest& request, const std::filesystem::path& pt);
// Feature rows (a .npy of n × n_features, or a CSV with one row per line and an optional header)
// → a CSV of the learned CVs, one line per row, headed by the run's CV names. Returns the row
// count. Throws core::InputError naming the file for rows of the wrong width.
std::int64_t project_feature_rows(const SpaceModelRequest& request,
                                  const std::filesystem::path& features,
                                  const std::filesystem::path& csv_out);

}  // namespace trails::report
