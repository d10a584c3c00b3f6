// What one walker (or swarm trial) must do, and what it produced. These are the only types that
// cross the Engine and Executor boundaries. Units: the engine's own (built-in: reduced units).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace trails::engines {

// A point in configuration space: n_atoms × spatial_dim coordinates, row-major.
struct Configuration {
  int n_atoms = 1;
  int spatial_dim = 2;
  std::vector<double> positions;
  std::vector<double> velocities;  // empty: draw fresh Maxwell–Boltzmann velocities from the seed
  std::vector<double> box;         // 9 values, box vectors a, b, c as rows; empty: no box
};

struct SegmentTask {
  std::int64_t task_id = 0;  // position in the batch; results are reassembled by it
  std::int64_t iteration = 0;
  std::int64_t walker = 0;
  Configuration start;
  std::int64_t steps = 0;
  std::int64_t stride = 1;  // frames at steps stride, 2*stride, ...: steps/stride frames, no t=0
  std::uint64_t seed = 0;   // every random number of the segment comes from this seed alone
};

enum class SegmentStatus { Ok, Failed };

struct SegmentResult {
  std::int64_t task_id = 0;
  SegmentStatus status = SegmentStatus::Failed;
  std::string error;  // readable reason when Failed
  int n_atoms = 0;
  int spatial_dim = 0;
  std::int64_t n_frames = 0;
  std::vector<double> frames;       // n_frames × n_atoms × spatial_dim
  std::vector<double> frame_boxes;  // n_frames × 9 when the system has a box, else empty
  Configuration final_state;        // positions and velocities after the last step
  double startup_s = 0.0;           // instance preparation / re-arm time
  double integrate_s = 0.0;         // time inside the integrator (includes synthetic cost)
  double extract_s = 0.0;           // copying frames and the final state out of the engine
  bool recovered = false;           // succeeded only on a re-run after energy minimisation
  std::string platform;             // where it ran: "builtin", OpenMM platform name, ...
  std::string device;               // device index and name, or CPU thread count ("" for builtin)
  std::string
      visible_devices;  // CUDA_VISIBLE_DEVICES / ROCR / OpenCL visibility seen by the worker
  std::string host;

  bool ok() const { return status == SegmentStatus::Ok; }
};

}  // namespace trails::engines
