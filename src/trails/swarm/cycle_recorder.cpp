#include "trails/swarm/cycle_recorder.h"

#include "trails/swarm/selection.h"

namespace trails::swarm {

nlohmann::json CycleRecorder::carried_state() const {
  nlohmann::json out = nlohmann::json::object();
  for (const core::CheckpointClient* client : clients_) {
    const nlohmann::json state = client->state();
    for (const auto& [key, blob] : state.items()) out[key].update(blob);
  }
  return out;
}

void CycleRecorder::run(ChainCycle& c) {
  FinishedCycle f;
  store::CycleRecord& rec = f.record;
  rec.chain = chain_;
  rec.cycle = c.cycle;
  rec.trial_metrics.assign(c.metrics.begin(),
                           c.metrics.begin() + static_cast<std::ptrdiff_t>(c.submitted));
  rec.probabilities = c.probabilities;
  rec.chosen = c.chosen;
  rec.entropy = entropy(c.probabilities);
  rec.tau2_metric = c.tau2_metric;
  rec.outcome = c.outcome;
  rec.anchor_metric = anchor_.metric;
  rec.anchor_cvs = anchor_.cvs;
  rec.reference = metric_.reference();
  rec.start_cvs = start_cvs_;
  rec.converged = c.converged;
  rec.stop = c.stop;
  rec.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - c.started).count();
  f.state = carried_state();
  for (std::size_t i = 0; i < c.submitted; ++i) {
    f.trials.push_back(std::move(*c.trials[i]));
    f.trial_seeds.push_back(c.seeds.trials[i]);
  }
  f.tau2 = std::move(c.tau2);
  f.tau2_seed = c.seeds.tau2;
  c.finished = std::move(f);
  c.next = CycleStep::Wait;
}

}  // namespace trails::swarm
