// The exploration spawners and the adaptive binners (docs/spawning.md) in a short built-in
// Müller–Brown campaign each (campaign_runs.h; spawning.history_window 3): voronoi, periodic
// Voronoi in target mode with a climbing cell ladder, lof, fps (plain and target), and the
// density spawner over binning.scheme gradient, mab (soft restarts, target) and eigenvector.
// Each explores beyond its start (occupancy at least doubles in 12 iterations) and restarts every
// walker from a frame of the last 3 + 1 iterations: the window maps to the right frames. Their
// kill -9 and --resume are in tests/scripts/spawners.sh.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "campaign_runs.h"
#include "support/files.h"
#include "trails/store/run_store.h"

namespace trails::campaign {
namespace {

namespace fs = std::filesystem;

constexpr int kWindow = 3;

struct Explorer {
  std::string name;
  std::string scheme;
  std::vector<std::string> spawning;  // after history_window: 3
  std::vector<std::string> binning;
  std::string spawn_type = "hard";
};

// Failures name the case.
void PrintTo(const Explorer& e, std::ostream* out) { *out << e.name; }

class ExplorationWindow : public ::testing::TestWithParam<Explorer> {};

TEST_P(ExplorationWindow, ExploresAndRestartsOnlyInsideTheWindow) {
  const Explorer& e = GetParam();
  test::MullerBrown mb;
  mb.spawn_scheme = e.scheme;
  mb.spawn_type = e.spawn_type;
  mb.spawning = {"history_window: " + std::to_string(kWindow)};
  mb.spawning.insert(mb.spawning.end(), e.spawning.begin(), e.spawning.end());
  mb.binning = e.binning;
  const auto c = test::load_yaml(test_support::fresh_dir(), mb.yaml());
  (void)test::run(c, 12);

  const auto rows = test::run_log_rows(c.outdir / "output.log");
  ASSERT_EQ(rows.size(), 12u);
  const auto first = std::stoll(rows.front().at("occupied_bins"));
  const auto last = std::stoll(rows.back().at("occupied_bins"));
  EXPECT_GE(last, 2 * first) << "occupancy " << first << " -> " << last;

  // Frame 0 of each walker after iteration 0 (its lineage parent) lies in the window.
  const auto store = store::RunStore::open(c.outdir, store::RunStore::Mode::ReadOnly);
  for (const auto& r : store.load_iterations()) {
    if (r.iteration == 0) continue;
    for (const auto& w : r.walkers) {
      if (w.n_frames == 0) continue;  // no frame in the lineage
      ASSERT_TRUE(w.parent.has_value()) << r.iteration << ":" << w.walker;
      EXPECT_GE(w.parent->iteration, r.iteration - 1 - kWindow)
          << r.iteration << ":" << w.walker << ":0 restarted from " << w.parent->to_string();
      EXPECT_LE(w.parent->iteration, r.iteration - 1)
          << r.iteration << ":" << w.walker << ":0 restarted from " << w.parent->to_string();
    }
  }
}

const std::string kTarget = "target: [0.6, 0.0]";

INSTANTIATE_TEST_SUITE_P(
    Spawners, ExplorationWindow,
    ::testing::Values(Explorer{"voronoi", "voronoi", {"voronoi_clusters: 20"}, {}},
                      // The cell ladder climbs every iteration (patience 1) from 4 cells to 40.
                      Explorer{"voronoi_periodic",
                               "voronoi",
                               {"voronoi_periodic: true", "voronoi_clusters: 4",
                                "voronoi_max_clusters: 40", "resolution_check_patience: 1",
                                "search_mode: target", kTarget},
                               {}},
                      Explorer{"lof", "lof", {"lof_neighbors: 10"}, {}},
                      Explorer{"fps", "fps", {}, {}},
                      Explorer{"fps_target", "fps", {"search_mode: target", kTarget}, {}},
                      // The resolution ladder climbs every iteration (patience 1): its bin counts
                      // reach the binner.
                      Explorer{"gradient",
                               "density",
                               {"resolution_check_patience: 1"},
                               {"scheme: gradient", "n_fine: 60", "smoothing: 5"}},
                      Explorer{"mab_soft_target",
                               "density",
                               {"search_mode: target", kTarget},
                               {"scheme: mab"},
                               "soft"},
                      Explorer{"eigenvector", "density", {}, {"scheme: eigenvector"}}),
    [](const ::testing::TestParamInfo<Explorer>& info) { return info.param.name; });

}  // namespace
}  // namespace trails::campaign
