// Density spawner (compat:density-spawner): favours sparsely populated bins.
// Soft: occupied bins weighted 1/population (× target closeness), W bins drawn without
// replacement when possible, then one uniform member frame per bin. Hard: bins by ascending
// population; within a tier, fresh bins (not picked in the last recent_window hard draws) before
// stale, each group shuffled; in target mode each group is then ordered by closeness (the
// fix:hard-target-closeness, where the shuffle destroyed that order, is fixed). Target closeness:
// 1/‖centre_b − centre_target‖ min–max normalised, the target bin itself gets 1 (fixing
// Trails-MD's 0). With an adaptive binning scheme (gradient, mab, eigenvector; compat:adaptive-
// binning) the pool is binned afresh at every choose() by the spawner's own Binner, fitted to the
// pool inside the campaign grid's box and bin counts, and closeness is linear in the bin-centre
// distance ((d_max − d)/(d_max − d_min)); the uniform scheme uses the campaign's incremental bin
// table. State (recent selections, the binner's fitted bins) is serialisable.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/binning/bin_table.h"
#include "trails/binning/binner.h"
#include "trails/binning/uniform_grid.h"
#include "trails/core/rng.h"
#include "trails/spawners/spawner.h"

namespace trails::spawners {

struct DensityOptions {
  bool hard = true;
  int recent_window = 5;
  std::optional<std::vector<double>> target;
  binning::BinnerOptions binning;  // scheme uniform: the pool's own table and grid
};

struct BinStat {
  std::int64_t bin;
  std::int64_t population;
  double closeness = 1.0;  // 1 when there is no target
};

class DensitySpawner final : public Spawner {
 public:
  explicit DensitySpawner(DensityOptions options);
  // Copies are independent (the binner, if any, is cloned with its fitted bins).
  DensitySpawner(const DensitySpawner& other);
  DensitySpawner& operator=(const DensitySpawner& other);
  DensitySpawner(DensitySpawner&&) noexcept = default;
  DensitySpawner& operator=(DensitySpawner&&) noexcept = default;
  ~DensitySpawner() override = default;

  std::vector<std::int64_t> choose(const SpawnPool& pool, int n, core::Rng& rng) override;

  // n global frame indices chosen from `table` (bins defined by `grid`; uniform scheme).
  std::vector<std::int64_t> choose(const binning::BinTable& table, const binning::UniformGrid& grid,
                                   int n, core::Rng& rng);

  // The two bin-selection rules on a hand-made histogram (exposed for tests).
  std::vector<double> soft_weights(const std::vector<BinStat>& bins) const;
  std::vector<std::int64_t> hard_order(const std::vector<BinStat>& bins, int n,
                                       core::Rng& rng) const;

  // Forget recent selections (after the grid is refined, old bin ids mean nothing).
  void reset_memory() override { recent_.clear(); }

  nlohmann::json state() const override;
  void restore(const nlohmann::json& state) override;

  const binning::Binner* binner() const { return binner_.get(); }  // null for uniform

 private:
  using Closeness = std::function<void(std::vector<BinStat>&, const std::vector<double>&)>;
  std::vector<std::int64_t> choose_from(const binning::BinTable& table, int cv_dim,
                                        const Closeness& closeness, int n, core::Rng& rng);

  DensityOptions options_;
  std::unique_ptr<binning::Binner> binner_;       // adaptive schemes only
  std::deque<std::vector<std::int64_t>> recent_;  // bin ids of the last hard selections
};

// Trails-MD _weighted_choice: non-finite -> 0; all zero -> uniform; normalise; n draws without
// replacement unless fewer rows or nonzero weights than n (then with replacement).
std::vector<std::int64_t> weighted_choice(std::vector<double> weights, int n, core::Rng& rng);

}  // namespace trails::spawners
