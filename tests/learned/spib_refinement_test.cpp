#include <gtest/gtest.h>

#include "systems.h"

namespace trails::learned {
namespace {

ModelOptions spib8(int rounds) {
  ModelOptions o;
  o.kind = "spib";
  o.latent_dim = 1;
  o.encoder_hidden_dims = {16};
  o.learning_rate = 1e-2;
  o.epochs = 60;
  o.spib_n_states = 8;
  o.spib_refine_rounds = rounds;
  o.seed = 3;
  return o;
}

// Two basins, fast noise inside each: at lag 10 only the basin is predictable, so the 8
// k-means states of the first pass collapse towards one per basin under relabelling.
TEST(SpibRefinement, PrunesStatesWithNonIncreasingChurn) {
  const test::System s = test::two_basins(6, 400, 10, 9);
  TrainingRecord record;
  train(spib8(5), s.data, record);
  EXPECT_EQ(record.spib_initial_states, 8);
  ASSERT_TRUE(record.spib_final_states.has_value());
  EXPECT_LT(*record.spib_final_states, 8);
  EXPECT_GE(*record.spib_final_states, 2);
  ASSERT_FALSE(record.spib_label_changes.empty());
  for (std::size_t i = 0; i < record.spib_label_changes.size(); ++i) {
    EXPECT_GE(record.spib_label_changes[i], 0.0);
    EXPECT_LE(record.spib_label_changes[i], 1.0);
    if (i > 0) {
      EXPECT_LE(record.spib_label_changes[i], record.spib_label_changes[i - 1]);
    }
  }
  EXPECT_EQ(record.epochs_run, static_cast<int>(record.loss.size()));
}

TEST(SpibRefinement, ZeroRoundsChangesNoLabels) {
  const test::System s = test::two_basins(6, 400, 10, 9);
  TrainingRecord record;
  train(spib8(0), s.data, record);
  EXPECT_TRUE(record.spib_label_changes.empty());
  EXPECT_EQ(record.spib_final_states, record.spib_initial_states);
  EXPECT_EQ(record.epochs_run, 60);
}

}  // namespace
}  // namespace trails::learned
