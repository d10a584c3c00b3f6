// Plain records exchanged between the campaign driver and the run store.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/core/frame_key.h"

namespace trails::store {

struct WalkerRecord {
  std::int64_t walker = 0;                 // raw walker index (slot in the iteration)
  std::uint64_t seed = 0;
  bool ok = false;
  std::string error;                       // reason when !ok
  std::int64_t n_frames = 0;               // 0 when !ok
  std::optional<core::FrameKey> parent;    // lineage parent of frame 0 (none at iteration 0)
  double startup_s = 0.0;
  double integrate_s = 0.0;
  std::string platform;
  std::string device;           // device index and name, or CPU threads ("" for builtin)
  std::string visible_devices;  // device visibility the worker saw (CUDA_VISIBLE_DEVICES, ...)
  std::string host;
};

struct SpawnChoice {
  std::int64_t slot = 0;        // next iteration's walker index
  std::int64_t pool_index = 0;  // index into the spawner's candidate pool (output.log column)
  core::FrameKey source;        // the chosen frame
};

// An extra per-frame dataset of the shard, /observables/<name>/value (rows × n_columns float64,
// the same rows as cvs): learned-space features and physical CVs (docs/file-formats.md).
// Written only; a resumed run recomputes them from the positions.
struct FrameObservable {
  std::string name;
  int n_columns = 0;
  std::vector<double> values;
};

struct IterationRecord {
  std::int64_t iteration = 0;
  std::vector<WalkerRecord> walkers;  // every walker of the iteration, failed ones included
  int cv_dim = 0;
  std::vector<double> cvs;            // frames of ok walkers, walker-major, × cv_dim
  int n_atoms = 0;
  int spatial_dim = 0;
  std::vector<double> positions;      // same frames × n_atoms × spatial_dim (in the shard only)
  std::vector<double> boxes;          // same frames × 9 (box vectors as rows), or empty: no box
  std::int64_t stride = 1;            // MD steps between frames (H5MD step = (frame+1)*stride)
  double dt = 0.0;                    // time step (H5MD time = step*dt)
  std::vector<SpawnChoice> spawns;    // restart frames chosen for iteration+1
  std::vector<FrameObservable> observables;  // extra shard datasets (shard only)
  double runner_s = 0.0;
  double analysis_s = 0.0;
  std::int64_t cumulative_frames = 0;
  std::int64_t occupied_bins = 0;
  std::int64_t total_bins = 0;
  std::vector<int> n_bins;            // coverage grid used for occupied_bins
  nlohmann::json state;               // driver state after this iteration (spawner, resolution, …)

  std::int64_t n_frames() const { return cv_dim == 0 ? 0 : static_cast<std::int64_t>(cvs.size()) / cv_dim; }
};

}  // namespace trails::store
