// The swarm driver (swarm/swarm_driver.h) on the built-in Müller–Brown example
// (examples/swarm-muller-brown, docs/swarm.md), what tests/scripts/swarm.sh checks through the
// command, here on the driver itself: the example reaches the product basin; a swarm is bitwise
// the same on one slot and on 4 devices x 2 workers; chain k of a multi-path run is the one-path
// run with seed + k; a run continued with a raised max_cycle equals the run made at once; a run
// into a run, a resume without one and a changed key on resume are configuration errors. The
// comparisons are the committed cycle records (what metrics.csv and the reactive path are made
// from) without their wall times.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "support/files.h"
#include "trails/config/swarm_config.h"
#include "trails/core/error.h"
#include "trails/store/cycle_record.h"
#include "trails/store/run_store.h"
#include "trails/swarm/swarm_driver.h"

namespace trails::swarm {
namespace {

namespace fs = std::filesystem;

// Counts what the driver reports, in order.
class Recorder final : public SwarmProgress {
 public:
  void started(const std::vector<std::string>& banner) override { banner_lines += banner.size(); }
  void cycle(const CycleReport& report) override { cycles.push_back(report); }
  void finished(const SwarmOutcome&) override { ++finished_calls; }
  std::size_t banner_lines = 0;
  std::vector<CycleReport> cycles;
  int finished_calls = 0;
};

// The example with its workdir in `dir`, max_cycle cycles, its seed replaced and `extra` lines
// added to its pathgennie block.
config::SwarmConfig example(const fs::path& dir, int max_cycle, int seed = 1,
                            const std::vector<std::string>& extra = {}) {
  std::string text = test_support::read_text(fs::path(TRAILS_SOURCE_DIR) /
                                             "examples/swarm-muller-brown/input.yaml");
  const auto replace = [&](const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
  };
  replace("workdir: runs/swarm-muller-brown", "workdir: " + (dir / "run").string());
  replace("  max_cycle: 400", "  max_cycle: " + std::to_string(max_cycle));
  std::string seed_line = "  seed: " + std::to_string(seed);
  for (const auto& line : extra) seed_line += "\n  " + line;
  replace("  seed: 1", seed_line);
  return config::load_swarm_config(test_support::write_text(dir / "input.yaml", text));
}

// Chain `chain`'s cycle records without what tells runs apart (wall time, chain number, the
// store iteration that holds the anchor frame), one JSON text per cycle.
std::vector<std::string> fingerprint(const fs::path& run, int chain) {
  const auto store = store::RunStore::open(run, store::RunStore::Mode::ReadOnly);
  std::vector<std::string> out;
  for (const auto& r : store::load_cycle_records(store)) {
    if (r.chain != chain) continue;
    auto j = store::to_json(r);
    j.erase("wall_s");
    j.erase("chain");
    j.erase("anchor");
    out.push_back(j.dump());
  }
  return out;
}

SwarmOutcome run(const config::SwarmConfig& c, bool resume = false) {
  Recorder quiet;
  return run_swarm(c, resume, quiet);
}

// The message of the bad-input error (exit 2) that run_swarm throws.
std::string input_error(const config::SwarmConfig& c, bool resume) {
  try {
    (void)run(c, resume);
  } catch (const core::Error& e) {
    EXPECT_EQ(e.exit_code(), 2) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

// The example converges: its last anchor lies in the product basin, within
// convergence.distance_to_target (0.1) of (0.623, 0.028), and path_steps grow.
TEST(SwarmDriver, TheExampleReachesTheProductBasin) {
  const fs::path dir = test_support::fresh_dir();
  const auto c = example(dir, 400);
  Recorder progress;
  const SwarmOutcome outcome = run_swarm(c, false, progress);
  ASSERT_EQ(outcome.chains.size(), 1u);
  EXPECT_TRUE(outcome.chains[0].converged);
  EXPECT_EQ(outcome.cycles_run, outcome.chains[0].cycles);
  EXPECT_GT(progress.banner_lines, 0u);
  EXPECT_EQ(progress.finished_calls, 1);
  ASSERT_EQ(progress.cycles.size(), static_cast<std::size_t>(outcome.cycles_run));
  for (std::size_t i = 0; i < progress.cycles.size(); ++i) {
    EXPECT_EQ(progress.cycles[i].cycle, static_cast<std::int64_t>(i));
    EXPECT_EQ(progress.cycles[i].cycles_committed, static_cast<std::int64_t>(i + 1));
  }
  EXPECT_TRUE(progress.cycles.back().converged);
  const auto store = store::RunStore::open(dir / "run", store::RunStore::Mode::ReadOnly);
  const auto records = store::load_cycle_records(store);
  ASSERT_EQ(records.size(), progress.cycles.size());
  const auto& last = records.back();
  EXPECT_TRUE(last.converged);
  ASSERT_EQ(last.anchor_cvs.size(), 2u);
  EXPECT_LE(std::hypot(last.anchor_cvs[0] - 0.623, last.anchor_cvs[1] - 0.028), 0.1);
  for (std::size_t i = 1; i < records.size(); ++i) {
    EXPECT_GE(records[i].path_steps, records[i - 1].path_steps);
  }
  EXPECT_GT(records.front().path_steps, 0);
}

// 8 slots (4 devices x 2 workers) run the same swarm as one slot, bit for bit.
TEST(SwarmDriver, BitwiseTheSameOnOneSlotAndOnEight) {
  const fs::path one = test_support::fresh_dir("one"), eight = test_support::fresh_dir("eight");
  (void)run(example(one, 30));
  (void)run(example(eight, 30, 1, {"devices: [0, 1, 2, 3]", "workers_per_device: 2"}));
  const auto expected = fingerprint(one / "run", 0);
  EXPECT_EQ(expected.size(), 30u);
  EXPECT_EQ(fingerprint(eight / "run", 0), expected);
}

// Chain 2 of a 3-path run with seed s is the one-path run with seed s + 2; chain 0 the run with s.
TEST(SwarmDriver, EachChainOfAMultiPathRunIsThatChainRunAlone) {
  const fs::path many = test_support::fresh_dir("many"), alone = test_support::fresh_dir("alone"),
                 first = test_support::fresh_dir("first");
  const SwarmOutcome outcome = run(example(many, 20, 1, {"paths: 3", "devices: [0, 1, 2, 3]"}));
  EXPECT_EQ(outcome.chains.size(), 3u);
  (void)run(example(alone, 20, 3));
  (void)run(example(first, 20, 1));
  EXPECT_EQ(fingerprint(many / "run", 2), fingerprint(alone / "run", 0));
  EXPECT_EQ(fingerprint(many / "run", 0), fingerprint(first / "run", 0));
  EXPECT_NE(fingerprint(many / "run", 1), fingerprint(many / "run", 0));
}

// 10 cycles, then the same run resumed with max_cycle 20: the 20 cycles of a run made at once.
TEST(SwarmDriver, ARaisedMaxCycleContinuesTheRunAsIfUninterrupted) {
  const fs::path straight = test_support::fresh_dir("straight"),
                 resumed = test_support::fresh_dir("resumed");
  const SwarmOutcome all = run(example(straight, 20, 1, {"paths: 2"}));
  const SwarmOutcome first = run(example(resumed, 10, 1, {"paths: 2"}));
  EXPECT_EQ(first.cycles_run, 20);
  const SwarmOutcome more = run(example(resumed, 20, 1, {"paths: 2"}), true);
  EXPECT_EQ(first.cycles_run + more.cycles_run, all.cycles_run);
  for (const int chain : {0, 1}) {
    EXPECT_EQ(fingerprint(resumed / "run", chain), fingerprint(straight / "run", chain));
  }
}

// Exit 2, nothing written: a fresh run into a run, a resume with another sigma, a resume of a
// directory without a run.
TEST(SwarmDriver, MisplacedRunsAndChangedKeysAreRefused) {
  const fs::path dir = test_support::fresh_dir();
  (void)run(example(dir, 3));
  EXPECT_NE(input_error(example(dir, 3), false).find("already holds a run"), std::string::npos);
  std::string text = test_support::read_text(dir / "input.yaml");
  text.replace(text.find("  sigma: 0.1"), 11, "  sigma: 0.3");
  const auto changed =
      config::load_swarm_config(test_support::write_text(dir / "input.yaml", text));
  EXPECT_NE(input_error(changed, true).find("pathgennie.sigma"), std::string::npos);
  EXPECT_EQ(fingerprint(dir / "run", 0).size(), 3u);
  const fs::path empty = test_support::fresh_dir("empty");
  EXPECT_NE(input_error(example(empty, 3), true).find("holds no swarm run"), std::string::npos);
  EXPECT_FALSE(fs::exists(empty / "run"));
}

}  // namespace
}  // namespace trails::swarm
