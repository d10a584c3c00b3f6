// A swarm chain composed of its elements (docs/architecture.md, "Swarm elements"): the cycle
// runs launch → scoring → selection → extension → guard → stop rules → record over a toy
// engine, and a chain resumed from a committed record (its checkpoint clients restored from
// it) continues exactly as the chain that never stopped.
#include <gtest/gtest.h>

#include <deque>

#include "cycle_world.h"
#include "trails/swarm/chain.h"

namespace trails::swarm {
namespace {

// A toy engine: each segment moves its start by an offset drawn from its seed.
engines::SegmentResult toy_segment(const engines::SegmentTask& t) {
  const double dx = static_cast<double>(t.seed % 13) / 13.0 - 0.3;
  const double dy = static_cast<double>(t.seed % 7) / 7.0 - 0.5;
  engines::SegmentResult r =
      test::ended_at(t.task_id, {t.start.positions[0] + dx, t.start.positions[1] + dy});
  r.final_state.velocities = {dx, dy};
  return r;
}

FinishedCycle run_cycle(Chain& chain, std::int64_t& next_id, int batch) {
  std::vector<engines::SegmentTask> first = chain.start_cycle(batch, next_id);
  std::deque<engines::SegmentTask> queue(first.begin(), first.end());
  while (!queue.empty()) {
    const engines::SegmentTask t = queue.front();
    queue.pop_front();
    EXPECT_TRUE(chain.owns(t.task_id));
    Step step = chain.take(toy_segment(t), next_id);
    for (auto& more : step.tasks) queue.push_back(std::move(more));
    if (step.finished) {
      EXPECT_TRUE(queue.empty());
      return std::move(*step.finished);
    }
  }
  ADD_FAILURE() << "the cycle did not finish";
  return {};
}

// The record as the store commits it: its own fields and the chain's carried state.
store::CycleRecord committed(const FinishedCycle& f) {
  nlohmann::json j = store::to_json(f.record);
  j.update(f.state.at("swarm"));
  return store::cycle_record_from_json(j);
}

nlohmann::json without_wall_time(const store::CycleRecord& r) {
  nlohmann::json j = store::to_json(r);
  j.erase("wall_s");
  return j;
}

class ChainCycles : public ::testing::TestWithParam<config::Probing> {};

TEST_P(ChainCycles, ARunsElementsInOrderAndAResumedChainContinuesExactly) {
  config::SwarmOptions o = test::options(4);
  o.probing = GetParam();
  o.stall_cycles = 50;
  o.reject_worse_anchor = true;
  const auto projection = test::coordinates();
  const Anchor start = test::anchor_at({1.0, 0.0});
  Chain chain(1, start, test::distance_from_origin(), {}, *projection, o);
  ASSERT_EQ(chain.elements().size(), 7U);
  EXPECT_EQ(chain.elements().front()->name(), "trials");
  EXPECT_EQ(chain.elements().back()->name(), "record");

  std::int64_t next_id = 0;
  std::vector<FinishedCycle> cycles;
  std::vector<Anchor> anchors;
  for (int c = 0; c < 4; ++c) {
    cycles.push_back(run_cycle(chain, next_id, 2));
    anchors.push_back(chain.anchor());
  }
  EXPECT_EQ(chain.next_cycle(), 4);
  EXPECT_FALSE(chain.busy());
  const store::CycleRecord second = committed(cycles[1]);
  EXPECT_EQ(second.cycle, 1);
  EXPECT_GT(second.path_steps, 0);

  // Resumed after cycle 1 from what the store keeps: the record and the anchor's positions.
  Chain resumed(1, start, test::distance_from_origin(), {}, *projection, o);
  Anchor anchor{anchors[1].state, second.anchor_cvs, second.anchor_metric};
  resumed.resume(std::move(anchor), second);
  EXPECT_EQ(resumed.next_cycle(), 2);
  std::int64_t resumed_id = 1000;
  for (int c = 2; c < 4; ++c) {
    const FinishedCycle f = run_cycle(resumed, resumed_id, 2);
    const auto k = static_cast<std::size_t>(c);
    EXPECT_EQ(without_wall_time(committed(f)), without_wall_time(committed(cycles[k])))
        << "cycle " << c;
    EXPECT_EQ(f.trial_seeds, cycles[k].trial_seeds);
  }
}

INSTANTIATE_TEST_SUITE_P(Probing, ChainCycles,
                         ::testing::Values(config::Probing::None, config::Probing::Unbind,
                                           config::Probing::Fold));

}  // namespace
}  // namespace trails::swarm
