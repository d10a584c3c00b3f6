#include <gtest/gtest.h>

#include "trails/core/error.h"
#include "trails/core/frame_key.h"

using trails::core::FrameKey;

TEST(FrameKey, RoundTripsTrailsMdKeys) {
  const FrameKey k{3, 1, 4};
  EXPECT_EQ(k.to_string(), "3:1:4");
  EXPECT_EQ(FrameKey::parse("3:1:4"), k);
  EXPECT_EQ(FrameKey::parse("12:0:99")->frame, 99);
}

TEST(FrameKey, RejectsMalformedKeys) {
  for (const char* bad : {"", "3:1", "3:1:4:5", "a:1:2", "3::4", "3:1:4x", " 3:1:4"}) {
    EXPECT_FALSE(FrameKey::parse(bad).has_value()) << bad;
  }
}

TEST(Error, ExitCodesSeparateUserErrorsFromFailures) {
  EXPECT_EQ(trails::core::ConfigError("x").exit_code(), 2);
  EXPECT_EQ(trails::core::InputError("x").exit_code(), 2);
  EXPECT_EQ(trails::core::UsageError("x").exit_code(), 2);
  EXPECT_EQ(trails::core::EngineError("x").exit_code(), 1);
  EXPECT_EQ(trails::core::StoreError("x").exit_code(), 1);
  trails::core::StoreError e("disk full");
  e.with_context("while committing iteration 3");
  EXPECT_NE(e.describe().find("while committing iteration 3"), std::string::npos);
}
