#include "duration_text.h"

#include <cmath>

#include <gtest/gtest.h>

namespace trails::app {
namespace {

TEST(DurationText, SecondsMinutesHours) {
  EXPECT_EQ(duration_text(0.0), "0 s");
  EXPECT_EQ(duration_text(59.4), "59 s");
  EXPECT_EQ(duration_text(59.6), "1 min 00 s");   // rounded first, then split
  EXPECT_EQ(duration_text(119.0), "1 min 59 s");  // minutes round down, not to nearest
  EXPECT_EQ(duration_text(3599.0), "59 min 59 s");
  EXPECT_EQ(duration_text(3725.0), "1 h 02 min");
  EXPECT_EQ(duration_text(7199.0), "1 h 59 min");
}

TEST(DurationText, UnknownIsAQuestionMark) {
  EXPECT_EQ(duration_text(NAN), "?");
  EXPECT_EQ(duration_text(-1.0), "?");
}

}  // namespace
}  // namespace trails::app
