// Weighted-ensemble spawner (spawn_scheme: we; docs/kinetics.md, compat:we-spawner): the live
// ensemble is the end frame of each ok walker of the latest iteration, with the weight its slot
// was given when it was spawned (a failed walker's weight is dropped and the survivors
// renormalised, compat:we-failed-walkers). Per call: (1) recycle: walkers whose end point lies in
// recycle_target (every axis, bounds inclusive) are moved to the recycling basis, their weight
// kept and added to the iteration's flux; (2) bin the end points with the spawner's Binner
// (binning.scheme; binning/binner.h): uniform bins on the campaign grid, an adaptive scheme refits
// its edges to those end points inside the grid's box and bin counts at the start of every call
// and keeps them fixed while resampling (docs/kinetics.md, "Adaptive bins");
// (3) resample (we_resampler.h) to the walker budget (we_allocation: budget, Trails-MD's) or to
// we_target_per_bin walkers per occupied bin (per_bin). Returns the parents' end frames, or the
// basis frame for recycled slots. The recycling basis is frame recycle_basis_index of the first
// iteration it sees, frozen there (its global index is state). Never uses older history.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <vector>

#include "trails/binning/binner.h"
#include "trails/spawners/spawner.h"

namespace trails::spawners {

struct WeOptions {
  bool per_bin = false;                               // we_allocation: per_bin
  int target_per_bin = 4;                             // spawning.we_target_per_bin (per_bin only)
  std::vector<std::array<double, 2>> recycle_target;  // empty: no recycling
  int recycle_basis_index = 0;
  binning::BinnerOptions binning;  // binning.scheme (uniform: the campaign grid as it is)
};

class WeSpawner final : public Spawner {
 public:
  explicit WeSpawner(WeOptions options);
  WeSpawner(const WeSpawner& other);  // independent: the binner is cloned with its fitted bins
  WeSpawner& operator=(const WeSpawner& other);
  WeSpawner(WeSpawner&&) noexcept = default;
  WeSpawner& operator=(WeSpawner&&) noexcept = default;
  ~WeSpawner() override = default;

  // n: the walker budget (spawning.walker); the number returned is n with we_allocation budget,
  // target_per_bin × occupied bins with per_bin.
  std::vector<std::int64_t> choose(const SpawnPool& pool, int n, core::Rng& rng) override;
  std::vector<std::int64_t> choose(const features::FrameHistory& history,
                                   const binning::UniformGrid& grid, int n, core::Rng& rng);

  nlohmann::json state() const override;
  void restore(const nlohmann::json& state) override;
  const Weighting* weighting() const override { return &weighting_; }
  std::optional<std::int64_t> basis_frame() const { return basis_; }
  const binning::Binner& binner() const { return *binner_; }

 private:
  // Weights of the latest iteration's ok walkers: their slots' weights, renormalised.
  std::vector<double> live_weights(std::span<const features::FrameHistory::WalkerSpan> live) const;
  bool in_target(std::span<const double> point) const;

  WeOptions options_;
  Weighting weighting_;                      // of the last choose (weights empty before the first)
  std::optional<std::int64_t> basis_;        // global frame index of the recycling basis
  std::unique_ptr<binning::Binner> binner_;  // fitted at each choose(); its bins are state
};

}  // namespace trails::spawners
