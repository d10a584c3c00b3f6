// Spawner: chooses the next iteration's restart frames from a driver's candidate pool. Every
// spawning scheme (density, MSM-guided, Voronoi, LOF, FPS, the weighted ensemble of
// we_spawner.h) implements it, so a driver holds one Spawner and has no per-scheme branch. A
// spawner draws only from the Rng it is given (the iteration's "spawn" stream) and keeps everything
// that carries across iterations in state(), so a resumed campaign spawns the same frames.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/binning/bin_table.h"
#include "trails/binning/uniform_grid.h"
#include "trails/core/rng.h"
#include "trails/features/frame_history.h"
#include "trails/msm/msm_stage.h"

namespace trails::spawners {

// What a spawner chooses from. The pool is the global frames [first, history.frames()).
struct SpawnPool {
  const features::FrameHistory& history;  // every frame's CV point
  std::int64_t first = 0;
  const binning::BinTable& bins;  // the pool's frames binned on `grid`
  const binning::UniformGrid& grid;
  const msm::MsmBuild* msm = nullptr;  // the latest applied in-loop MSM build, if any
};

// What a weighted spawner (the weighted ensemble) says about the walkers its last choose()
// started, beyond their frames. Unweighted spawners have none: their walkers weigh the same.
struct Weighting {
  std::vector<double> weights;          // statistical weight of each chosen slot; Σ = 1
  std::vector<char> recycled;           // 1: the slot restarts a walker that reached the recycling
                                        // target, from the recycling basis with fresh velocities
  std::optional<double> recycled_flux;  // weight recycled by that choose() (recycling runs)
  std::int64_t recycled_walkers = 0;    // walkers it recycled
};

class Spawner {
 public:
  virtual ~Spawner() = default;
  // n global frame indices (each in the pool), in the order of the next iteration's walkers. A
  // spawner that sizes the next iteration itself (the weighted ensemble's per-bin allocation)
  // returns its own count, and a recycling one may return the frozen basis frame, outside the
  // pool; the driver runs one walker per returned index.
  virtual std::vector<std::int64_t> choose(const SpawnPool& pool, int n, core::Rng& rng) = 0;
  // The grid (or space) was replaced: bin ids remembered from before mean nothing now.
  virtual void reset_memory() {}
  virtual nlohmann::json state() const = 0;
  virtual void restore(const nlohmann::json& state) = 0;
  // A spawner with a resolution of its own (the Voronoi spawner's cell count) returns it; the
  // campaign's resolution ladder then refines it instead of the grid (compat:resolution-ladder)
  // and hands each new value to set_cells().
  virtual std::optional<int> cells() const { return std::nullopt; }
  virtual void set_cells(int /*cells*/) {}
  // A weighted spawner's account of its last choose() (or of the state restore() set); the
  // driver stores the weights with the walkers they start and the flux with the iteration.
  virtual const Weighting* weighting() const { return nullptr; }
};

// The pool's CV points [first, history.frames()), row-major (one copy, block by block).
std::vector<double> pool_points(const features::FrameHistory& history, std::int64_t first);

// Restores a spawner's state blob written as {"version": version, ...}: a different version or
// malformed JSON throws core::InputError naming `what` ("density spawner"); otherwise `read`
// takes the blob (and may throw InputError itself).
void restore_versioned(const nlohmann::json& state, std::string_view what, int version,
                       const std::function<void(const nlohmann::json&)>& read);

// search_mode target: throws core::InputError unless the target has one value per CV dimension.
void check_target_dimension(const std::vector<double>& target, int cv_dim);

}  // namespace trails::spawners
