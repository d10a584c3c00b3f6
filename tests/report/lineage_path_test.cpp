// `trails path` building blocks on hand-built lineages with known answers: the lineage walk,
// the lowest common ancestor and the assembled path, no common ancestor, a loop, the nearest
// frame, the ledger-derived frame table and the pairs file (the command-line value lists are
// tests/apps/value_list_test.cpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "support/files.h"
#include "trails/analysis/lineage_path.h"
#include "trails/core/error.h"
#include "trails/report/common/run_frames.h"
#include "trails/report/path/path.h"

using namespace trails;
using core::FrameKey;

namespace {

FrameKey key(const std::string& text) { return *FrameKey::parse(text); }

std::vector<std::string> strings(const std::vector<FrameKey>& keys) {
  std::vector<std::string> out;
  for (const auto& k : keys) out.push_back(k.to_string());
  return out;
}

// Iteration 0: walkers 0 and 1 (roots 0:0:0, 0:1:0). Iteration 1: walker 0 from 0:0:2,
// walker 1 from 0:0:1, walker 2 from 0:1:2, walker 3 failed. Iteration 2: walker 0 from 1:0:1,
// walker 1 from 1:1:2. Three frames per ok walker; CV of frame (i, w, f) = (10i + w, f).
std::vector<store::IterationRecord> hand_built_run() {
  const std::map<std::int64_t, std::vector<std::optional<FrameKey>>> parents = {
      {0, {std::nullopt, std::nullopt}},
      {1, {key("0:0:2"), key("0:0:1"), key("0:1:2"), std::nullopt}},
      {2, {key("1:0:1"), key("1:1:2")}}};
  std::vector<store::IterationRecord> records;
  for (const auto& [it, ps] : parents) {
    store::IterationRecord r;
    r.iteration = it;
    r.cv_dim = 2;
    r.stride = 10;
    r.dt = 0.5;
    for (std::size_t w = 0; w < ps.size(); ++w) {
      store::WalkerRecord wr;
      wr.walker = static_cast<std::int64_t>(w);
      wr.ok = !(it == 1 && w == 3);
      wr.n_frames = wr.ok ? 3 : 0;
      wr.parent = ps[w];
      for (std::int64_t f = 0; f < wr.n_frames; ++f) {
        r.cvs.push_back(10.0 * static_cast<double>(it) + static_cast<double>(w));
        r.cvs.push_back(static_cast<double>(f));
      }
      r.walkers.push_back(wr);
    }
    records.push_back(r);
  }
  return records;
}

struct HandBuiltRun : ::testing::Test {
  report::RunFrames frames{hand_built_run()};
  analysis::ParentOf parent_of = [this](const FrameKey& k) { return frames.parent_of(k); };
};

TEST_F(HandBuiltRun, LineageWalksSegmentsBackToTheRoot) {
  EXPECT_EQ(strings(analysis::lineage_of(key("2:0:2"), parent_of)),
            (std::vector<std::string>{"2:0:2", "2:0:1", "2:0:0", "1:0:1", "1:0:0", "0:0:2", "0:0:1",
                                      "0:0:0"}));
}

TEST_F(HandBuiltRun, PathGoesBackToTheLowestCommonAncestorAndForwardToTheEnd) {
  const auto p = analysis::connect_lineage(key("2:0:2"), key("2:1:1"), parent_of);
  EXPECT_EQ(p.lca.to_string(), "0:0:1");
  EXPECT_EQ(strings(p.frames),
            (std::vector<std::string>{"2:0:2", "2:0:1", "2:0:0", "1:0:1", "1:0:0", "0:0:2", "0:0:1",
                                      "1:1:0", "1:1:1", "1:1:2", "2:1:0", "2:1:1"}));
  // Reversed ends give the reversed path through the same ancestor.
  const auto back = analysis::connect_lineage(key("2:1:1"), key("2:0:2"), parent_of);
  EXPECT_EQ(back.lca, p.lca);
  auto reversed = strings(p.frames);
  std::reverse(reversed.begin(), reversed.end());
  EXPECT_EQ(strings(back.frames), reversed);
}

TEST_F(HandBuiltRun, AnAncestorEndAndOneFramePaths) {
  const auto p = analysis::connect_lineage(key("0:0:1"), key("1:1:2"), parent_of);
  EXPECT_EQ(p.lca.to_string(), "0:0:1");
  EXPECT_EQ(strings(p.frames), (std::vector<std::string>{"0:0:1", "1:1:0", "1:1:1", "1:1:2"}));
  const auto one = analysis::connect_lineage(key("1:2:1"), key("1:2:1"), parent_of);
  EXPECT_EQ(strings(one.frames), (std::vector<std::string>{"1:2:1"}));
}

TEST_F(HandBuiltRun, SeparateRootsShareNoLineage) {
  try {
    analysis::connect_lineage(key("2:0:2"), key("1:2:0"), parent_of);
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("frames 2:0:2 and 1:2:0 do not share a recorded lineage"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("0:0:0 and 0:1:0"), std::string::npos) << what;
    EXPECT_EQ(e.exit_code(), 2);
  }
}

TEST(LineagePath, ALoopIsAnInputError) {
  const std::map<FrameKey, FrameKey> parent = {
      {key("3:0:0"), key("2:0:0")}, {key("2:0:0"), key("1:0:0")}, {key("1:0:0"), key("3:0:0")}};
  const analysis::ParentOf of = [&](const FrameKey& k) -> std::optional<FrameKey> {
    const auto it = parent.find(k);
    return it == parent.end() ? std::nullopt : std::optional(it->second);
  };
  EXPECT_THROW(analysis::lineage_of(key("3:0:0"), of), core::InputError);
  try {
    analysis::connect_lineage(key("2:0:0"), key("5:0:0"), of);
    FAIL() << "expected InputError";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("loops"), std::string::npos) << e.what();
  }
}

TEST_F(HandBuiltRun, FrameTableFollowsTheLedger) {
  ASSERT_EQ(frames.size(), 2u * 3 + 3u * 3 + 2u * 3);
  EXPECT_EQ(frames.keys()[6].to_string(), "1:0:0");
  const auto row = *frames.row_of(key("1:2:1"));
  EXPECT_EQ(frames.cv(row)[0], 12.0);
  EXPECT_EQ(frames.cv(row)[1], 1.0);
  EXPECT_EQ(frames.time(row), 2 * 10 * 0.5);  // (frame + 1) × stride × dt
  EXPECT_FALSE(frames.row_of(key("1:3:0")));  // the failed walker has no frames
  EXPECT_FALSE(frames.row_of(key("1:2:3")));
  EXPECT_FALSE(frames.parent_of(key("0:1:0")));
  EXPECT_EQ(frames.parent_of(key("2:1:0")), key("1:1:2"));
  EXPECT_EQ(frames.parent_of(key("2:1:2")), key("2:1:1"));
}

TEST(LineagePath, NearestPointIsEuclideanWithTiesToTheFirst) {
  const std::vector<double> pts = {0, 0, 3, 4, 1, 1, -1, -1, 1, 1};
  EXPECT_EQ(analysis::nearest_point(pts, std::vector<double>{2.9, 3.0}), 1u);
  EXPECT_EQ(analysis::nearest_point(pts, std::vector<double>{0.0, 0.1}), 0u);
  EXPECT_EQ(analysis::nearest_point(pts, std::vector<double>{1.0, 1.0}), 2u);    // rows 2 and 4 tie
  EXPECT_EQ(analysis::nearest_point(pts, std::vector<double>{-0.5, -0.5}), 0u);  // rows 0, 3 tie
}

TEST(PairsFile, JsonAndCsvLayouts) {
  const std::filesystem::path dir = test_support::fresh_dir();
  const auto write = [&](const std::string& name, const std::string& text) {
    return test_support::write_text(dir / name, text);
  };
  const auto json = report::read_pairs_file(
      write("p.json", R"([{"name": "A to B", "start": [-0.5, 1.4], "end": [0.6, 0.0]},
                          {"start": [1, 2], "end": [3, 4]}])"));
  ASSERT_EQ(json.size(), 2u);
  EXPECT_EQ(json[0].name, "A to B");
  EXPECT_EQ(json[0].start, (std::vector<double>{-0.5, 1.4}));
  EXPECT_EQ(json[1].end, (std::vector<double>{3, 4}));
  const auto csv2 =
      report::read_pairs_file(write("p.csv", "name,start_0,start_1,end_0,end_1\nab,-1,2,3,4\n"));
  ASSERT_EQ(csv2.size(), 1u);
  EXPECT_EQ(csv2[0].name, "ab");
  EXPECT_EQ(csv2[0].start, (std::vector<double>{-1, 2}));
  EXPECT_EQ(csv2[0].end, (std::vector<double>{3, 4}));
  const auto csv1 = report::read_pairs_file(write("q.csv", "start,end\n-1.0,1.0\n0.5,-0.5\n"));
  ASSERT_EQ(csv1.size(), 2u);
  EXPECT_EQ(csv1[1].start, (std::vector<double>{0.5}));
  EXPECT_THROW(report::read_pairs_file(write("bad.json", R"([{"start": [1]}])")), core::InputError);
  EXPECT_THROW(report::read_pairs_file(write("bad.csv", "from,to\n1,2\n")), core::InputError);
  // A cell that is not a number is a usage error naming the file's line and column (exit 2).
  for (const auto& [cells, words] :
       {std::pair<std::string, std::string>{"start,end\n1,x\n",
                                            "line 2 end 'x': 'x' is not a "
                                            "finite number"},
        {"start,end\n,1\n", "line 2 start '': an empty value; give numbers separated by commas"},
        {"start,end\n1,inf\n", "line 2 end 'inf': 'inf' is not a finite number"}}) {
    try {
      (void)report::read_pairs_file(write("cells.csv", cells));
      ADD_FAILURE() << cells;
    } catch (const core::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  }
}

}  // namespace
