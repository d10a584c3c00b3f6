#include "trails/swarm/trial_extension.h"

#include <cmath>

#include "trails/swarm/trial_scoring.h"

namespace trails::swarm {

void TrialExtension::run(ChainCycle& c) {
  if (c.arrived) {
    take(c);
  } else {
    launch(c);
  }
}

void TrialExtension::launch(ChainCycle& c) const {
  const engines::SegmentResult& chosen = *c.trials[static_cast<std::size_t>(c.chosen)];
  engines::SegmentTask t;
  t.task_id = c.next_task_id++;
  t.iteration = c.cycle;
  t.walker = static_cast<std::int64_t>(c.submitted);  // the extension follows the trials run
  t.start = chosen.final_state;                       // velocities continued
  t.steps = o_.tau2_steps;
  t.stride = o_.tau2_steps;
  t.seed = c.seeds.tau2;
  c.tau2_task = t.task_id;
  c.tasks.push_back(std::move(t));
  c.next = CycleStep::Wait;
}

void TrialExtension::take(ChainCycle& c) const {
  engines::SegmentResult result = std::move(*c.arrived);
  c.arrived.reset();
  const auto k = static_cast<std::size_t>(c.chosen);
  const engines::SegmentResult& trial = *c.trials[k];
  Anchor extended;
  double tau2_metric = kNoValue;
  if (result.ok() && result.n_frames > 0) {
    extended = Anchor{result.final_state, end_cvs(result, projection_), 0.0};
    extended.state.velocities.clear();
    tau2_metric = extended.metric = metric_(extended.cvs);
  }
  Anchor candidate{trial.final_state, c.trial_cvs[k], c.metrics[k]};
  candidate.state.velocities.clear();
  c.outcome = store::CycleOutcome::Trial;
  c.steps = o_.tau1_steps;
  // reject_worse_tau2: the extension may not lose progress over the trial it extends; a failed
  // extension also falls back to the trial's end.
  if (std::isfinite(tau2_metric) &&
      !(o_.reject_worse_tau2 && judged_value(o_, metric_, extended, c.cycle) < c.values[k])) {
    candidate = std::move(extended);
    c.outcome = store::CycleOutcome::Extended;
    c.steps += o_.tau2_steps;
  }
  c.candidate = std::move(candidate);
  c.tau2_metric = tau2_metric;
  c.tau2 = std::move(result);
  c.next = CycleStep::Guard;
}

}  // namespace trails::swarm
