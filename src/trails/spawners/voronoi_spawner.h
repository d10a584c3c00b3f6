// Voronoi spawner (compat:voronoi-spawner), 2-D CV spaces only: the pool is divided into
// k = min(cells, N) Voronoi cells (the pool's points themselves when k = N, else k-means centres
// fitted on a random subsample of min(N, max(10000, 20 k)) pool points, 100 Lloyd iterations);
// each occupied cell c gets w_c = area_c / n_c (× closeness to the target cell in target mode:
// (d_max − d)/(d_max − d_min) of centre distances, the target cell 1); W cells are drawn by
// weighted_choice and one uniform member frame per cell. The box is the grid's [min, max]; with
// voronoi_periodic it is a torus (points wrapped, minimum-image distances, torus cell areas).
// The cell count is this spawner's resolution: the campaign's ladder raises it ×1.5 up to
// voronoi_max_clusters (compat:resolution-ladder); it is the spawner's state. spawn_type has no
// effect (as in Trails-MD). Pool and indices are the campaign's (history_window honoured).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "trails/analysis/voronoi_cells.h"
#include "trails/spawners/spawner.h"

namespace trails::spawners {

struct VoronoiOptions {
  int cells = 150;                            // spawning.voronoi_clusters (start of the ladder)
  bool periodic = false;                      // spawning.voronoi_periodic
  std::optional<std::vector<double>> target;  // search_mode target: the target point
};

// One iteration's cells over a pool: centres (k x 2), each pool point's cell, each cell's area.
struct VoronoiPartition {
  std::vector<double> centres;
  std::vector<int> labels;
  std::vector<double> areas;
};

class VoronoiSpawner final : public Spawner {
 public:
  explicit VoronoiSpawner(VoronoiOptions options);

  std::vector<std::int64_t> choose(const SpawnPool& pool, int n, core::Rng& rng) override;

  // The cells of `points` (pool order; wrapped into a periodic box by the caller), drawing the
  // k-means subsample and seed from rng. Exposed for tests.
  VoronoiPartition partition(const std::vector<double>& points, const analysis::VoronoiBox& box,
                             core::Rng& rng) const;
  // w_c for every cell of a partition (0 for empty cells).
  std::vector<double> cell_weights(const VoronoiPartition& cells,
                                   const analysis::VoronoiBox& box) const;

  std::optional<int> cells() const override { return cells_; }
  void set_cells(int cells) override;
  nlohmann::json state() const override;
  void restore(const nlohmann::json& state) override;

 private:
  VoronoiOptions options_;
  int cells_;
};

}  // namespace trails::spawners
