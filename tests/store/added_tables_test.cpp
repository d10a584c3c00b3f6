// The tables added after schema 2 (msm_builds, config_changes): a ledger that never made one
// reads as having no rows; once written, rows read back in their order with every column, also
// after a reopen (docs/file-formats.md).
#include <gtest/gtest.h>

#include "store_test_util.h"

namespace trails::store::test {
namespace {

class AddedTablesTest : public StoreTest {};

TEST_F(AddedTablesTest, MissingTablesHaveNoRows) {
  auto store = RunStore::create(dir_, test_meta());
  store.commit(make_record(0));
  EXPECT_TRUE(store.msm_builds().empty());
  EXPECT_TRUE(store.config_changes().empty());
}

TEST_F(AddedTablesTest, MsmBuildsReadBackByIteration) {
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(make_record(0));
    store.commit(make_record(1));
    store.commit_msm_build({1, 0.75, {{"lag", 3}, {"pi", {0.25, 0.75}}}});
    store.commit_msm_build({0, 1.0 / 3.0, {{"lag", 2}}});
    store.commit_msm_build({1, 0.5, {{"lag", 4}}});  // a resumed run's rebuild replaces it
  }
  auto store = RunStore::open(dir_, RunStore::Mode::ReadOnly);
  const auto builds = store.msm_builds();
  ASSERT_EQ(builds.size(), 2u);
  EXPECT_EQ(builds[0].iteration, 0);
  EXPECT_TRUE(same_bits(builds[0].build_s, 1.0 / 3.0));
  EXPECT_EQ(builds[0].model, (nlohmann::json{{"lag", 2}}));
  EXPECT_EQ(builds[1].iteration, 1);
  EXPECT_TRUE(same_bits(builds[1].build_s, 0.5));
  EXPECT_EQ(builds[1].model, (nlohmann::json{{"lag", 4}}));
}

TEST_F(AddedTablesTest, ConfigChangesReadBackInTheOrderMade) {
  RunMeta updated = test_meta();
  updated.config["walkers"] = 6;
  updated.config_digest = "sha256:def456";
  {
    auto store = RunStore::create(dir_, test_meta());
    store.commit(make_record(0));
    store.record_config_changes({{1, "walkers", 4, 6, ""}, {1, "stride", nullptr, 20, ""}},
                                updated);
    store.record_config_changes({{2, "walkers", 6, 8, ""}}, updated);
  }
  auto store = RunStore::open(dir_, RunStore::Mode::ReadOnly);
  const auto changes = store.config_changes();
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_EQ(changes[0].iteration, 1);
  EXPECT_EQ(changes[0].key, "walkers");
  EXPECT_EQ(changes[0].before, 4);
  EXPECT_EQ(changes[0].after, 6);
  EXPECT_EQ(changes[1].key, "stride");
  EXPECT_TRUE(changes[1].before.is_null());
  EXPECT_EQ(changes[1].after, 20);
  EXPECT_EQ(changes[2].iteration, 2);
  EXPECT_EQ(changes[2].before, 6);
  EXPECT_EQ(changes[2].after, 8);
  for (const auto& c : changes) {
    EXPECT_EQ(c.changed_at.size(), 24u) << c.key;
    EXPECT_EQ(c.changed_at.back(), 'Z') << c.key;
  }
  EXPECT_EQ(store.meta().config_digest, "sha256:def456");
}

}  // namespace
}  // namespace trails::store::test
