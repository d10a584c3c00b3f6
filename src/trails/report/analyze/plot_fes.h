// The free-energy pictures of a run (free_energy.h), assembled from its store: fes.png from
// histogram counts or from a `trails reweight` weights file, and fes_msm.png from the latest
// MSM build's stationary distribution when that build has a model and stores its centres.
// Everything is read and checked here, before the caller draws or writes anything.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trails/report/analyze/free_energy.h"
#include "trails/report/analyze/reweight.h"
#include "trails/store/run_store.h"

namespace trails::report {

struct NamedFreeEnergy {
  std::string file;  // "fes.png" | "fes_msm.png"
  FreeEnergyPicture picture;
};

// The weights a run's own sampling gives its frames: a weighted-ensemble run's frames carry
// their walker's weight (walkers.weight), so its free energy is the histogram of those weights
// as WESTPA's w_pdist makes it (docs/kinetics.md). Empty for every other run: its frames are
// counted.
std::vector<double> ensemble_frame_weights(const store::RunMeta& meta,
                                           const CommittedFrames& frames);
// How those weights are named on pictures and in summaries.
inline constexpr const char* kEnsembleWeighting =
    "weighted-ensemble walker weights (as WESTPA's w_pdist)";

// `potential` (may be null) must outlive the pictures. Throws InputError for a weights file
// that is not this run's (read_weights_header) or a run without frames.
std::vector<NamedFreeEnergy> run_free_energy_pictures(
    const store::RunStore& store, const std::filesystem::path& run_dir,
    const std::optional<std::filesystem::path>& weights, std::optional<double> temperature_k,
    const engines::builtin::Potential* potential);

}  // namespace trails::report
