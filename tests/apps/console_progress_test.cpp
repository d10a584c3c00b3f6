// `trails run`'s progress lines (apps/trails/console_progress.h) in a log, not a terminal: what
// the driver reports at the end becomes "Completed …" and, when the campaign converged,
// "Converged: <reason>" (the driver side: tests/campaign/occupancy_convergence_test.cpp).
#include "console_progress.h"

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "support/compare.h"

namespace trails::app {
namespace {

// What `finished` prints for `outcome`, through a temporary file (no terminal).
std::string finished_text(const campaign::CampaignOutcome& outcome) {
  std::FILE* file = std::tmpfile();
  if (file == nullptr) {
    ADD_FAILURE() << "no temporary file";
    return {};
  }
  ConsoleProgress(file).finished(outcome);
  std::rewind(file);
  std::string text;
  for (int ch = std::fgetc(file); ch != EOF; ch = std::fgetc(file)) text += static_cast<char>(ch);
  std::fclose(file);
  return text;
}

TEST(ConsoleProgress, AConvergedCampaignSaysWhy) {
  campaign::CampaignOutcome o;
  o.converged = true;
  o.reason = "No new occupied bins for 3 iterations";
  o.completed_iterations = 7;
  o.requested_iterations = 50;
  o.ran_now = 7;
  EXPECT_EQ(finished_text(o),
            "Completed 7 iteration(s) (7 committed in total).\n"
            "Converged: No new occupied bins for 3 iterations\n");
}

TEST(ConsoleProgress, AnUnconvergedCampaignSaysNothingOfConvergence) {
  campaign::CampaignOutcome o;
  o.completed_iterations = 5;
  o.requested_iterations = 5;
  o.ran_now = 2;
  const std::string text = finished_text(o);
  EXPECT_EQ(text, "Completed 2 iteration(s) (5 committed in total).\n");
  EXPECT_FALSE(test_support::contains(text, "Converged"));
}

}  // namespace
}  // namespace trails::app
