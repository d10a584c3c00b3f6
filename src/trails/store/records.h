// Plain records exchanged between the campaign driver and the run store.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/core/frame_key.h"

namespace trails::store {

struct WalkerRecord {
  std::int64_t walker = 0;  // raw walker index (slot in the iteration)
  std::uint64_t seed = 0;
  bool ok = false;
  std::string error;                     // reason when !ok
  std::int64_t n_frames = 0;             // 0 when !ok
  std::optional<core::FrameKey> parent;  // lineage parent of frame 0 (none at iteration 0)
  double startup_s = 0.0;
  double integrate_s = 0.0;
  std::string platform;
  std::string device;           // device index and name, or CPU threads ("" for builtin)
  std::string visible_devices;  // device visibility the worker saw (CUDA_VISIBLE_DEVICES, ...)
  std::string host;
  // Statistical weight of the segment (docs/file-formats.md, walkers.weight). The campaign
  // writes 1/n_walkers for every walker of the iteration, failed ones included; a weighted
  // ensemble resampler sets its own.
  double weight = 1.0;
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

// One ok walker's state after its last MD step, stored at full float64 precision in the
// shard's /trails/final_state group whatever the record policy (docs/file-formats.md).
struct FinalState {
  std::int64_t walker = 0;
  std::vector<double> positions;   // n_atoms × spatial_dim
  std::vector<double> velocities;  // same shape, or empty: the engine reports none
  std::vector<double> box;         // 9 values (vectors as rows), or empty: no box
};

// What the shard's H5MD positions hold (output.record_selection, output.precision,
// output.position_precision). Every atom at float64 is what earlier Trails wrote. Final states
// never depend on it. A quantised policy keeps positions on a grid of `position_precision`
// (position_grid.h); the campaign then puts its in-memory frames on the same grid, so CVs,
// features and restarts are computed from exactly what the shards give back.
struct RecordPolicy {
  std::vector<int> atoms;           // atom indices kept, strictly increasing; empty: every atom
  bool float32 = false;             // positions stored as float32 instead of float64
  double position_precision = 0.0;  // grid step in the engine's length unit; 0: not quantised
  bool quantised() const { return position_precision > 0.0; }
  // The shard cannot give back the full frames (a selection, or float32 rounding that the
  // in-memory frames do not follow): the chosen restarts are stored in full.
  bool reduces() const { return !atoms.empty() || float32; }
};

// What a shard's positions will hold, known before the first walker finishes (the run store's
// PendingShard): atoms, dimension and record policy; the expected sizes only size buffers.
struct ShardLayout {
  int n_atoms = 0;
  int spatial_dim = 0;
  RecordPolicy policy;
  std::int64_t expected_frames = 0;  // every walker's frames
  std::int64_t expected_states = 0;  // final states (walkers)
  int cv_dim = 0;
};

struct IterationRecord {
  std::int64_t iteration = 0;
  std::vector<WalkerRecord> walkers;  // every walker of the iteration, failed ones included
  int cv_dim = 0;
  std::vector<double> cvs;  // frames of ok walkers, walker-major, × cv_dim
  int n_atoms = 0;
  int spatial_dim = 0;
  std::vector<double> positions;  // same frames × n_atoms × spatial_dim (in the shard only)
  std::vector<double> boxes;      // same frames × 9 (box vectors as rows), or empty: no box
  std::vector<FinalState> final_states;  // one per ok walker, in walker order (shard only)
  RecordPolicy record_policy;            // how positions are stored in the shard (not read back)
  std::int64_t stride = 1;               // MD steps between frames (H5MD step = (frame+1)*stride)
  double dt = 0.0;                       // time step (H5MD time = step*dt)
  std::vector<SpawnChoice> spawns;       // restart frames chosen for iteration+1
  // Full float64 start configuration of each spawn slot (walker = slot; no velocities), stored
  // when the record policy reduces the shard's positions so that a resume can restart; empty
  // otherwise (a resume then reads the spawned frames from the shards).
  std::vector<FinalState> spawn_starts;
  std::vector<FrameObservable> observables;  // extra shard datasets (shard only)
  // Weighted-ensemble recycling (table recycling, docs/file-formats.md): the weight of the
  // walkers of this iteration that ended in the recycling target, and how many they were; none
  // without recycling.
  std::optional<double> recycled_flux;
  std::int64_t recycled_walkers = 0;
  double runner_s = 0.0;
  double analysis_s = 0.0;
  std::int64_t cumulative_frames = 0;
  std::int64_t occupied_bins = 0;
  std::int64_t total_bins = 0;
  std::vector<int> n_bins;  // coverage grid used for occupied_bins
  // Driver state after this iteration: a JSON object whose top-level keys are element keys
  // (spawner, resolution, space, msm, …); each is stored as its own versioned blob.
  nlohmann::json state;
  std::map<std::string, int> state_versions;  // element key -> version (absent: 1)

  std::int64_t n_frames() const {
    return cv_dim == 0 ? 0 : static_cast<std::int64_t>(cvs.size()) / cv_dim;
  }
};

}  // namespace trails::store
