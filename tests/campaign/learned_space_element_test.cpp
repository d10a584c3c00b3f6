// The learned-space element (campaign/learned_space_element.h) on a PCA space of 2-D coordinate
// features: its step gives each frame a CV in the current space, a refit replays the frame
// history and the coverage tables on the space's grid, and its "space" state round-trips
// (resume with frames from the run store is covered by the campaign tests: neural_campaign_test,
// tests/scripts/learned_*.sh).
#include <gtest/gtest.h>

#include "element_world.h"
#include "trails/campaign/learned_space_element.h"
#include "trails/features/feature_source.h"
#include "trails/features/projection.h"

using namespace trails;
namespace ct = campaign::test;

namespace {

struct LearnedWorld {
  LearnedWorld() {
    spaces::SpaceOptions options;
    options.mode = "pca";
    options.seed = 5;
    options.dim = 1;
    options.learned.lagtime = 2;
    coverage = std::make_unique<campaign::CoverageElement>(
        binning::ResolutionController({6}, 12, 2, 2), std::vector<double>{0.0},
        std::vector<double>{1.0}, std::nullopt, history, spawner);
    space = std::make_unique<campaign::LearnedSpaceElement>(
        options, features::make_coordinate_features(2), /*save_features=*/true, *projection,
        history, *coverage, store, "run");
  }

  // The learned variant of the list's project → learned space → history steps.
  campaign::IterationState step(std::int64_t i) {
    campaign::IterationState it;
    it.iteration = i;
    it.spans = ct::spans_of();
    it.rec.n_atoms = 1;
    it.rec.spatial_dim = 2;
    it.rec.cv_dim = 1;
    it.rec.positions = ct::frames_of(i);
    it.rec.cvs = it.rec.positions;  // the identity projection's CVs
    space->run(it);
    if (space->stage().retrained()) {
      space->replay_history();
    } else {
      history.append(i, it.spans, it.rec.cvs);
      coverage->add_latest();
    }
    return it;
  }

  features::FrameHistory history{1};
  spawners::DensitySpawner spawner{spawners::DensityOptions{}};
  std::unique_ptr<features::Projection> projection = features::make_identity_projection(2);
  std::optional<store::RunStore> store;  // no frames to load: one feature type, PCA
  std::unique_ptr<campaign::CoverageElement> coverage;
  std::unique_ptr<campaign::LearnedSpaceElement> space;
};

}  // namespace

TEST(LearnedSpaceElement, GivesEachFrameACvInTheCurrentSpace) {
  LearnedWorld w;
  const auto it = w.step(0);
  EXPECT_EQ(it.rec.cvs.size(), static_cast<std::size_t>(ct::kWalkers * ct::kFrames));
  ASSERT_EQ(it.rec.observables.size(), 1U);  // save_features; an identity projection keeps no
  EXPECT_EQ(it.rec.observables[0].name, "features");  // physical_cvs
  EXPECT_TRUE(w.space->stage().has_model());
}

TEST(LearnedSpaceElement, ARefitReplaysHistoryAndCoverageInTheNewSpace) {
  LearnedWorld w;
  for (std::int64_t i = 0; i < 4; ++i) w.step(i);
  ASSERT_TRUE(w.coverage->has_grid());
  EXPECT_EQ(w.history.frames(), 4 * ct::kWalkers * ct::kFrames);
  EXPECT_EQ(w.coverage->tracker().coverage().frames(), w.history.frames());
  EXPECT_EQ(w.coverage->tracker().grid().n_bins(), std::vector<int>{6});
}

TEST(LearnedSpaceElement, StateRoundTripsUnderItsKeys) {
  LearnedWorld a;
  for (std::int64_t i = 0; i < 3; ++i) a.step(i);
  const auto state = a.space->state();
  ASSERT_TRUE(state.contains("space"));
  EXPECT_FALSE(state.contains("space_model"));  // a linear space keeps its model in "space"
  LearnedWorld b;
  b.space->restore(state);
  EXPECT_EQ(b.space->state(), state);
  EXPECT_EQ(b.space->stage().space_version(), a.space->stage().space_version());
}
