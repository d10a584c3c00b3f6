// Shared by the campaign element tests: the stateful elements wired as the driver wires them
// (docs/architecture.md, "Campaign elements") over a frame history that is fed deterministic
// 2-D frames instead of MD: iteration i holds 4 walkers × 25 frames drifting to the right, so
// coverage grows, the resolution ladder climbs and the MSM has frames to build from.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "trails/binning/resolution.h"
#include "trails/campaign/checkpoint.h"
#include "trails/campaign/coverage_element.h"
#include "trails/campaign/msm_element.h"
#include "trails/campaign/spawn_element.h"
#include "trails/core/rng.h"
#include "trails/spawners/density_spawner.h"

namespace trails::campaign::test {

inline constexpr int kWalkers = 4;
inline constexpr std::int64_t kFrames = 25;

// Iteration i's frames: walker w's segment, row-major (x, y), inside [0, 10)².
inline std::vector<double> frames_of(std::int64_t i) {
  std::vector<double> cvs;
  for (int w = 0; w < kWalkers; ++w) {
    auto rng = core::Rng::stream(7, "element-world", static_cast<std::uint64_t>(i),
                                 static_cast<std::uint64_t>(w));
    double x = std::min(9.0, 0.6 * static_cast<double>(i) + 0.5 * w), y = 2.0 * w + 1.0;
    for (std::int64_t f = 0; f < kFrames; ++f) {
      x = std::clamp(x + 0.3 * (rng.uniform() - 0.4), 0.0, 9.999);
      y = std::clamp(y + 0.3 * (rng.uniform() - 0.5), 0.0, 9.999);
      cvs.push_back(x);
      cvs.push_back(y);
    }
  }
  return cvs;
}

inline std::vector<features::FrameHistory::WalkerSpan> spans_of() {
  std::vector<features::FrameHistory::WalkerSpan> spans;
  for (int w = 0; w < kWalkers; ++w) spans.push_back({w, kFrames});
  return spans;
}

inline config::MsmConfig small_msm(bool enabled) {
  config::MsmConfig c;
  c.enabled = enabled;
  c.min_frames = 150;
  c.n_microstates = 6;
  c.lagtime = 2;
  c.n_timescales = 2;
  c.convergence_patience = 0;
  return c;
}

struct ElementWorld {
  explicit ElementWorld(bool msm_enabled = false) {
    msm = std::make_unique<MsmElement>(
        std::make_unique<msm::MsmStage>(small_msm(msm_enabled), 11, 2, /*overlap=*/false), history,
        [this](const msm::MsmBuild& b) { builds.push_back(b); });
    auto spawner = std::make_unique<spawners::DensitySpawner>(spawners::DensityOptions{});
    coverage = std::make_unique<CoverageElement>(
        binning::ResolutionController({4, 4}, 12, 2, 2), std::vector<double>{0.0, 0.0},
        std::vector<double>{10.0, 10.0}, std::nullopt, history, *spawner);
    spawn = std::make_unique<SpawnElement>(std::move(spawner), 42, kWalkers, history, *coverage,
                                           msm->stage());
    coverage->start_uniform_grid();
  }

  std::vector<CheckpointClient*> clients() { return {coverage.get(), spawn.get(), msm.get()}; }
  nlohmann::json state() {
    const auto c = clients();
    return state_of(std::vector<const CheckpointClient*>(c.begin(), c.end()));
  }

  // What the history step does with iteration i: frames in, binned, handed to the MSM.
  std::int64_t feed(std::int64_t i) {
    const auto spans = spans_of();
    const auto first = history.append(i, spans, frames_of(i));
    coverage->add_latest();
    msm->observe(first, spans);
    return first;
  }

  // Iteration i as the list runs the elements: MSM join, history, spawn, coverage, MSM build.
  IterationState step(std::int64_t i) {
    IterationState it;
    it.iteration = i;
    it.msm_built = msm->join(nullptr);
    it.first_frame = feed(i);
    spawn->run(it);
    coverage->run(it);
    msm->run(it);
    return it;
  }

  // A world resumed from `state` after iterations 0..last (what the driver's resume does).
  static std::unique_ptr<ElementWorld> resumed(const nlohmann::json& state, std::int64_t last,
                                               bool msm_enabled = false) {
    auto w = std::make_unique<ElementWorld>(msm_enabled);
    auto clients = w->clients();
    restore_clients(clients, state, CheckpointClient::RestorePhase::Early);
    w->coverage->start_uniform_grid();  // on the restored ladder's bins
    for (std::int64_t i = 0; i <= last; ++i) w->feed(i);
    restore_clients(clients, state, CheckpointClient::RestorePhase::AfterHistory);
    return w;
  }

  features::FrameHistory history{2};
  std::vector<msm::MsmBuild> builds;
  std::unique_ptr<MsmElement> msm;
  std::unique_ptr<CoverageElement> coverage;
  std::unique_ptr<SpawnElement> spawn;
};

// After `iterations` steps, the element `of(world)` writes exactly `key`, and a fresh world's
// element restored from it writes the same state again.
template <typename Of>
void expect_state_round_trip(Of of, const char* key, std::int64_t iterations) {
  ElementWorld a;
  for (std::int64_t i = 0; i < iterations; ++i) a.step(i);
  const auto state = of(a).state();
  ASSERT_TRUE(state.contains(key));
  EXPECT_EQ(state.size(), 1U);
  ElementWorld b;
  of(b).restore(state);
  EXPECT_EQ(of(b).state(), state);
}

}  // namespace trails::campaign::test
