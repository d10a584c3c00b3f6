// A 20-iteration Müller–Brown campaign (the shell tests' small campaign, campaign_runs.h) leaves
// the start basin A (−0.56, 1.44): some sampled frame crosses the A–C saddle region (x > −0.2
// or y < 0.9), which plain MD from A at this temperature and length essentially never does. Its
// output.log has the Trails-MD columns, one row per iteration with frames accumulating exactly
// and occupancy never decreasing, and convergence.json says it ran to the target unconverged
// (docs/file-formats.md).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "campaign_runs.h"
#include "support/compare.h"
#include "support/files.h"
#include "trails/store/run_store.h"

namespace trails::campaign {
namespace {

namespace fs = std::filesystem;

TEST(MullerBrownCampaign, LeavesTheStartBasinAndLogsEveryIteration) {
  const fs::path dir = test_support::fresh_dir();
  const auto c = test::load_yaml(dir, test::MullerBrown{}.yaml());
  (void)test::run(c, 20);

  // The CVs `trails export` writes: 20 iterations × 8 walkers × 20 frames of (x, y).
  const auto store = store::RunStore::open(c.outdir, store::RunStore::Mode::ReadOnly);
  std::size_t frames = 0, left = 0;
  for (const auto& r : store.load_iterations()) {
    ASSERT_EQ(r.cv_dim, 2);
    for (std::size_t f = 0; f < r.cvs.size() / 2; ++f, ++frames) {
      if (r.cvs[2 * f] > -0.2 || r.cvs[2 * f + 1] < 0.9) ++left;
    }
  }
  EXPECT_EQ(frames, 20u * 8u * 20u);
  EXPECT_GT(left, 0u) << "the campaign never left the start basin";

  const std::string log = test_support::read_text(c.outdir / "output.log");
  test_support::expect_has(log, "\niteration\trunner_s\tanalysis_s\ttotal_s\tsuccessful_walkers");
  EXPECT_TRUE(log.rfind("# spawn_scheme=density", 0) == 0 ||
              test_support::contains(log, "\n# spawn_scheme=density"))
      << log;
  const auto rows = test::run_log_rows(c.outdir / "output.log");
  ASSERT_EQ(rows.size(), 20u);
  std::int64_t occupied = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].at("iteration"), std::to_string(i));
    EXPECT_EQ(rows[i].at("cumulative_frames"), std::to_string((i + 1) * 160)) << "iteration " << i;
    const std::int64_t now = std::stoll(rows[i].at("occupied_bins"));
    EXPECT_GE(now, occupied) << "occupancy fell in iteration " << i;
    occupied = now;
  }

  const auto conv = nlohmann::json::parse(test_support::read_text(c.outdir / "convergence.json"));
  EXPECT_EQ(conv.at("completed_iterations"), 20) << conv.dump();
  EXPECT_EQ(conv.at("requested_iterations"), 20) << conv.dump();
  EXPECT_EQ(conv.at("converged"), false) << conv.dump();
  EXPECT_TRUE(conv.at("convergence_reason").is_null()) << conv.dump();
}

}  // namespace
}  // namespace trails::campaign
