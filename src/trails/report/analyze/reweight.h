// `trails reweight RUN_DIR`: RiteWeight frame weights of a run's committed history
// (docs/analysis.md, "`trails reweight` (RiteWeight)"), written BESIDE the run (never into it),
// and their reader for `trails plot --weights`. Segments are the transitions frame f -> f+1
// inside each walker's trajectory of an iteration (stride MD steps apart, in CV space).
// A frame's weight is half the weight of the segment leaving it plus half of the one entering
// it, so every frame counts and the weights sum to 1.
// Reads the run store only (committed iterations; safe on a run being written). Bad input
// (options, an output inside the run, a weights file of another run) throws UsageError or
// InputError before anything is written.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trails/analysis/riteweight.h"
#include "trails/store/run_store.h"

namespace trails::report {

// Every frame of the committed iterations (of iterations <= up_to when given), in ledger order
// (= `trails export --cvs`), with its key.
struct CommittedFrames {
  int d = 0;
  std::vector<double> points;  // n × d
  std::vector<core::FrameKey> keys;
  std::vector<double> walker_weights;  // n: each frame's walker's weight (walkers.weight)
  std::int64_t last_iteration = -1;
  std::size_t size() const { return keys.size(); }
};
CommittedFrames load_run_frames(const store::RunStore& store, const std::filesystem::path& run_dir,
                                std::optional<std::int64_t> up_to = std::nullopt);

struct ReweightRequest {
  std::filesystem::path run_dir;
  std::optional<std::filesystem::path> out;  // default: default_weights_path(run_dir)
  analysis::RiteWeightOptions options = [] {
    analysis::RiteWeightOptions o;
    o.seed = 42;  // the command's default seed
    return o;
  }();
};

struct ReweightResult {
  std::filesystem::path written;
  std::size_t frames = 0;
  std::size_t segments = 0;
  int n_clusters = 0;
  bool converged = false;
  double first_drift = 0.0;
  double last_drift = 0.0;
  std::int64_t last_iteration = 0;
};

// RUN_DIR.weights.csv next to the run directory (RUN_DIR without trailing separators).
std::filesystem::path default_weights_path(const std::filesystem::path& run_dir);

ReweightResult reweight_run(const ReweightRequest& request);

// The weights of `frames` from a `trails reweight` file: the file must name this run (its
// created_at and config digest) and list exactly the frames of iterations 0..K, in order, where
// K is the file's last iteration; `frames` must be loaded up to K (read_weights_header gives it).
struct WeightsHeader {
  std::int64_t last_iteration = 0;
  nlohmann::json json;
};
WeightsHeader read_weights_header(const std::filesystem::path& file, const store::RunMeta& meta);
std::vector<double> read_frame_weights(const std::filesystem::path& file,
                                       const CommittedFrames& frames);

}  // namespace trails::report
