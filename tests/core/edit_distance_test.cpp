// The one Levenshtein distance behind the config loader's and the selection parser's "did you
// mean" suggestions (core/edit_distance.h).
#include "trails/core/edit_distance.h"

#include <gtest/gtest.h>

namespace trails::core {
namespace {

TEST(EditDistance, KnownDistances) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("walkr", "walker"), 1u);  // one insertion
  EXPECT_EQ(edit_distance("temprature", "temperature"), 1u);
  EXPECT_EQ(edit_distance("flaw", "lawn"), 2u);
  EXPECT_EQ(edit_distance("abc", "abc"), 0u);
}

TEST(EditDistance, LetterCaseIsCountedOnlyWhenSensitive) {
  EXPECT_EQ(edit_distance("Walker", "walker"), 1u);
  EXPECT_EQ(edit_distance("Walker", "walker", LetterCase::Sensitive), 1u);
  EXPECT_EQ(edit_distance("WALKR", "walker", LetterCase::Insensitive), 1u);
  EXPECT_EQ(edit_distance("name", "NAME", LetterCase::Insensitive), 0u);
}

}  // namespace
}  // namespace trails::core
