#include "trails/swarm/anchor_guard.h"

#include "trails/core/error.h"
#include "trails/swarm/trial_scoring.h"

namespace trails::swarm {

void AnchorGuard::run(ChainCycle& c) {
  TRAILS_CHECK(c.candidate.has_value(), "anchor guard without a candidate");
  if (o_.reject_worse_anchor && judged_value(o_, metric_, *c.candidate, c.cycle) <
                                    judged_value(o_, metric_, anchor_, c.cycle)) {
    c.outcome = store::CycleOutcome::KeptAnchor;
    c.steps = 0;
  } else {
    anchor_ = std::move(*c.candidate);
  }
  c.candidate.reset();
  path_steps_ += c.steps;
  c.next = CycleStep::Stop;
}

nlohmann::json AnchorGuard::state() const { return {{kKey.key, {{"path_steps", path_steps_}}}}; }

void AnchorGuard::restore(const nlohmann::json& state) {
  path_steps_ = state.at(kKey.key).at("path_steps").get<std::int64_t>();
}

}  // namespace trails::swarm
