// PathGennie's Python functions in a swarm run (docs/swarm.md, "From a PathGennie input.yaml"):
// `projection: {module, function, periodic, **kwargs}` gives the CVs of every trial end and
// anchor, `convergence: {module, function, **kwargs}` says whether an anchor has converged. Both
// are called as function(coords, **kwargs) with coords a float64 (n_atoms, 3) array in Å,
// through ONE long-lived Python worker (features::PythonWorker; calls serialized by a mutex).
// They are taken to be pure functions of the coordinates, so a run stays reproducible and
// resumable. Private to the swarm module.
#pragma once

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "trails/config/swarm_config.h"
#include "trails/features/projection.h"
#include "trails/features/python_worker.h"

namespace trails::swarm {

class PythonFunctions {
 public:
  explicit PythonFunctions(const config::SwarmConfig& config);

  // Imports the modules and finds the functions without calling them (before anything is
  // written). ConfigError naming the input.yaml block and line.
  void check_imports();
  // Calls each function once on the start structure (nm, n_atoms × 3): a function that raises,
  // returns the wrong shape or type, or a projection.periodic of the wrong length is a
  // ConfigError naming the block and line. Fixes the projection's dimension.
  void check_on(std::span<const double> start_positions_nm);

  // The projection (after check_on), named cv0, cv1, ...; it shares this object's worker.
  static std::unique_ptr<features::Projection> projection(std::shared_ptr<PythonFunctions> self);
  // The convergence function on one configuration (nm); EngineError when it fails mid-run.
  bool converged(std::span<const double> positions_nm);

  int dimension() const { return dimension_; }
  std::vector<double> periods() const;
  // CV rows of n_frames frames (n_frames × n_atoms × 3 nm), appended to `out`. A frame with a
  // non-finite coordinate gives NaN CVs without a call (the trial is quarantined).
  void project(std::span<const double> frames, std::int64_t n_frames, std::vector<double>& out);

 private:
  // The function's reply values, one per frame; nullopt + `problem` set when it failed.
  std::optional<nlohmann::json> call(const config::PythonFunction& f, const char* kind,
                                     std::span<const double> frames, std::int64_t n_frames,
                                     std::string& problem);

  const config::SwarmOptions& o_;
  int n_atoms_ = 0;
  int dimension_ = 0;
  std::mutex mutex_;
  features::PythonWorker worker_;
};

}  // namespace trails::swarm
