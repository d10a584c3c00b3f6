// The same campaign on 1 worker (the serial executor) and on 2 threads commits the same CVs and
// lineage bit for bit and writes byte-identical shards: walker noise comes only from walker
// seeds, and results are reassembled (and appended to the pending shard) in task order whatever
// the order they finish in (docs/file-formats.md, "When a shard is written"). `trails export`
// writes its CV and lineage tables from exactly the records compared here.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "campaign_runs.h"
#include "support/compare.h"
#include "support/files.h"
#include "trails/core/frame_key.h"
#include "trails/store/run_store.h"

namespace trails::campaign {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> shard_names(const fs::path& run) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(run / "shards")) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// A lineage parent as `trails export --lineage` writes it ("" for a root frame).
std::string key_text(const std::optional<core::FrameKey>& key) {
  return key ? key->to_string() : std::string();
}

TEST(SerialVsThreads, CampaignsAreBitwiseIdentical) {
  const fs::path dir = test_support::fresh_dir();
  test::MullerBrown mb;
  mb.max_workers = 1;
  const auto serial = test::load_yaml(dir / "serial", mb.yaml());
  mb.max_workers = 2;
  const auto threads = test::load_yaml(dir / "threads", mb.yaml());
  (void)test::run(serial, 8);
  (void)test::run(threads, 8);

  const auto a = store::RunStore::open(serial.outdir, store::RunStore::Mode::ReadOnly);
  const auto b = store::RunStore::open(threads.outdir, store::RunStore::Mode::ReadOnly);
  const auto ra = a.load_iterations(), rb = b.load_iterations();
  ASSERT_EQ(ra.size(), 8u);
  ASSERT_EQ(rb.size(), 8u);
  for (std::size_t i = 0; i < ra.size(); ++i) {
    SCOPED_TRACE("iteration " + std::to_string(i));
    // The CV export: every frame's CVs, walker by walker.
    EXPECT_EQ(ra[i].cv_dim, rb[i].cv_dim);
    EXPECT_FALSE(ra[i].cvs.empty());
    EXPECT_TRUE(test_support::same_bits(ra[i].cvs, rb[i].cvs));
    // The lineage export: each walker's frames and the frame it restarted from.
    ASSERT_EQ(ra[i].walkers.size(), 8u);
    ASSERT_EQ(rb[i].walkers.size(), 8u);
    for (std::size_t w = 0; w < ra[i].walkers.size(); ++w) {
      const auto &x = ra[i].walkers[w], &y = rb[i].walkers[w];
      EXPECT_EQ(x.walker, y.walker);
      EXPECT_EQ(x.seed, y.seed);
      EXPECT_TRUE(x.ok && y.ok) << "walker " << w;
      EXPECT_EQ(x.n_frames, y.n_frames);
      EXPECT_EQ(key_text(x.parent), key_text(y.parent)) << "walker " << w;
    }
    ASSERT_EQ(ra[i].spawns.size(), rb[i].spawns.size());
    for (std::size_t s = 0; s < ra[i].spawns.size(); ++s) {
      EXPECT_EQ(ra[i].spawns[s].slot, rb[i].spawns[s].slot);
      EXPECT_EQ(ra[i].spawns[s].source.to_string(), rb[i].spawns[s].source.to_string());
    }
  }

  const auto names = shard_names(serial.outdir);
  ASSERT_EQ(names.size(), 8u) << "one shard per iteration";
  EXPECT_EQ(shard_names(threads.outdir), names);
  for (const auto& name : names) {
    EXPECT_TRUE(test_support::read_bytes(serial.outdir / "shards" / name) ==
                test_support::read_bytes(threads.outdir / "shards" / name))
        << name << " differs";
  }
}

}  // namespace
}  // namespace trails::campaign
