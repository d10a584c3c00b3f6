// The walker failure policy (min_success_fraction, docs/configuration.md): walker 1 of 4 starts
// where the Müller–Brown exponentials overflow and fails in iteration 0. At 0.75 the driver warns
// about it by walker number, commits the three survivors without a frame of the failed walker
// (what `trails export` writes comes from these records) and runs slot 1 again from a spawned
// frame in iteration 1; at 1.0 it throws an EngineError (exit 1) that names the shortfall and the
// walker's error, and leaves nothing of the run. The command's exit status and message are
// checked in tests/scripts/hardening_resume.sh.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "campaign_runs.h"
#include "support/compare.h"
#include "support/files.h"
#include "trails/core/error.h"
#include "trails/store/run_store.h"

namespace trails::campaign {
namespace {

namespace fs = std::filesystem;

// The default logger's messages while it lives (the driver's warnings go there).
class CapturedLog {
 public:
  CapturedLog() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(text_);
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("captured", std::move(sink)));
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::logger> previous_;
};

TEST(WalkerFailurePolicy, AboveTheFractionTheSurvivorsGoOnAndTheSlotIsRespawned) {
  const fs::path dir = test_support::fresh_dir();
  const auto c = test::load_yaml(dir, test::bad_start_yaml("survive", 0.75));
  CapturedLog log;
  const auto outcome = test::run(c, 3);
  EXPECT_EQ(outcome.completed_iterations, 3);
  test_support::expect_has(log.text(), "walker 1");

  // output.log's row of iteration 0: 3 walkers done, 1 failed.
  const auto log_rows = test::run_log_rows(c.outdir / "output.log");
  ASSERT_EQ(log_rows.size(), 3u);
  EXPECT_EQ(log_rows[0].at("iteration"), "0");
  EXPECT_EQ(log_rows[0].at("successful_walkers"), "3");
  EXPECT_EQ(log_rows[0].at("failed_walkers"), "1");

  const auto store = store::RunStore::open(c.outdir, store::RunStore::Mode::ReadOnly);
  const auto records = store.load_iterations();
  ASSERT_EQ(records.size(), 3u);
  // Iteration 0: walker 1 failed, with no frames; the CVs are the survivors' 3 × 10 frames.
  ASSERT_EQ(records[0].walkers.size(), 4u);
  for (const auto& w : records[0].walkers) {
    EXPECT_EQ(w.ok, w.walker != 1) << "walker " << w.walker;
    EXPECT_EQ(w.n_frames, w.walker == 1 ? 0 : 10) << "walker " << w.walker;
  }
  test_support::expect_has(records[0].walkers[1].error, "non-finite");
  EXPECT_EQ(records[0].cvs.size(), 3u * 10u * 2u);
  // Iteration 1: slot 1 runs again, from a frame the spawner chose.
  ASSERT_EQ(records[1].walkers.size(), 4u);
  const auto& again = records[1].walkers[1];
  EXPECT_EQ(again.walker, 1);
  EXPECT_TRUE(again.ok) << again.error;
  EXPECT_EQ(again.n_frames, 10);
  ASSERT_TRUE(again.parent.has_value());
  EXPECT_EQ(again.parent->iteration, 0);
  EXPECT_NE(again.parent->walker, 1);
}

TEST(WalkerFailurePolicy, BelowTheFractionTheRunStopsAndLeavesNothing) {
  const fs::path dir = test_support::fresh_dir();
  const auto c = test::load_yaml(dir, test::bad_start_yaml("strict", 1.0));
  try {
    (void)test::run(c, 3);
    ADD_FAILURE() << "a failed walker below min_success_fraction did not stop the run";
  } catch (const core::EngineError& e) {
    EXPECT_EQ(e.exit_code(), 1);
    test_support::expect_has(e.what(), "only 3 of 4 walkers succeeded");
    test_support::expect_has(e.what(), "non-finite");  // the walker's own error
  }
  EXPECT_FALSE(fs::exists(c.outdir)) << "the failed iteration 0 left " << c.outdir;
}

}  // namespace
}  // namespace trails::campaign
