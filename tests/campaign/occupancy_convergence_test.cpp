// Occupancy convergence ends a campaign early (spawning.convergence_patience): a 1-D double
// well of 4 bins is covered within a few iterations, after which no new bin is occupied; the
// driver stops long before the 50 iterations asked for, reports why to its progress sink (which
// `trails run` prints as "Converged: …", tests/apps/console_progress_test.cpp) and writes the
// outcome to convergence.json (docs/file-formats.md, docs/configuration.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "campaign_runs.h"
#include "support/compare.h"
#include "support/files.h"

namespace trails::campaign {
namespace {

namespace fs = std::filesystem;

TEST(OccupancyConvergence, EndsTheCampaignEarlyAndSaysWhy) {
  const fs::path dir = test_support::fresh_dir();
  const auto c = test::load_yaml(dir,
                                 "outdir: conv\nn_bins: [4]\nmin_values: [-2.0]\n"
                                 "max_values: [2.0]\nsystem:\n  start: [-1.0]\n"
                                 "engine:\n  md_engine: builtin\n  potential: double_well\n"
                                 "  kT: 1.0\n  dt: 0.001\n"
                                 "spawning:\n  walker: 4\n  step: 200\n  stride: 10\n"
                                 "  resolution_max_bins: 4\n  convergence_patience: 3\n");
  test::Recorder progress;
  const CampaignOutcome outcome = test::run(c, 50, false, &progress);

  EXPECT_TRUE(outcome.converged);
  test_support::expect_has(outcome.reason, "No new occupied bins");
  EXPECT_GE(outcome.completed_iterations, 3);
  EXPECT_LT(outcome.completed_iterations, 50);
  EXPECT_EQ(outcome.requested_iterations, 50);
  EXPECT_EQ(outcome.ran_now, outcome.completed_iterations);
  EXPECT_EQ(progress.iterations.size(), static_cast<std::size_t>(outcome.completed_iterations));
  ASSERT_EQ(progress.outcomes.size(), 1u);
  EXPECT_TRUE(progress.outcomes[0].converged);
  EXPECT_EQ(progress.outcomes[0].reason, outcome.reason);

  const auto file = nlohmann::json::parse(test_support::read_text(c.outdir / "convergence.json"));
  EXPECT_EQ(file.at("converged"), true) << file.dump();
  EXPECT_EQ(file.at("convergence_reason"), outcome.reason) << file.dump();
  EXPECT_EQ(file.at("completed_iterations"), outcome.completed_iterations) << file.dump();
  EXPECT_EQ(file.at("requested_iterations"), 50) << file.dump();
}

}  // namespace
}  // namespace trails::campaign
