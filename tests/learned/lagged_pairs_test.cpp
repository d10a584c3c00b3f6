#include <gtest/gtest.h>

#include "trails/core/error.h"
#include "trails/learned/model.h"

namespace trails::learned {
namespace {

TEST(LaggedPairs, NeverCrossASegmentBoundary) {
  // Segments of 4, 1 (a failed walker's stub), 0, 3 rows; lag 2.
  const std::vector<std::int64_t> segments{4, 1, 0, 3};
  const auto pairs = lagged_pairs(segments, 2);
  const std::vector<std::pair<std::int64_t, std::int64_t>> expected{{0, 2}, {1, 3}, {5, 7}};
  EXPECT_EQ(pairs, expected);
  // Every pair lies inside one segment.
  std::vector<std::int64_t> segment_of;
  for (std::size_t s = 0; s < segments.size(); ++s)
    for (std::int64_t r = 0; r < segments[s]; ++r)
      segment_of.push_back(static_cast<std::int64_t>(s));
  for (const auto& [a, b] : lagged_pairs(segments, 1)) EXPECT_EQ(segment_of[a], segment_of[b]);
}

TEST(LaggedPairs, ShortSegmentsGiveNoneAndBadLagIsRefused) {
  const std::vector<std::int64_t> segments{3, 3};
  EXPECT_TRUE(lagged_pairs(segments, 3).empty());
  EXPECT_THROW(lagged_pairs(segments, 0), core::Error);
}

TEST(TrainingRecord, JsonRoundTrip) {
  TrainingRecord r;
  r.epochs_run = 3;
  r.loss = {1.5, 1.25, 1.0 / 3.0};
  r.vamp2 = 2.5;
  r.spib_label_changes = {0.5, 0.0};
  r.spib_initial_states = 8;
  r.spib_final_states = 2;
  const TrainingRecord back = TrainingRecord::from_json(nlohmann::json::parse(r.to_json().dump()));
  EXPECT_EQ(back.epochs_run, 3);
  EXPECT_EQ(back.loss, r.loss);
  EXPECT_EQ(back.vamp2, r.vamp2);
  EXPECT_EQ(back.spib_label_changes, r.spib_label_changes);
  EXPECT_EQ(back.spib_initial_states, 8);
  EXPECT_EQ(back.spib_final_states, 2);
  EXPECT_FALSE(TrainingRecord::from_json(TrainingRecord{}.to_json()).vamp2.has_value());
  EXPECT_THROW(TrainingRecord::from_json(nlohmann::json::object()), core::Error);
}

}  // namespace
}  // namespace trails::learned
