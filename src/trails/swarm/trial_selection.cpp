#include "trails/swarm/trial_selection.h"

#include <cmath>
#include <span>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/swarm/selection.h"

namespace trails::swarm {

void TrialSelection::run(ChainCycle& c) {
  if (o_.probing == config::Probing::None) {
    softmax(c);
  } else {
    first_improvement(c);
  }
}

void TrialSelection::softmax(ChainCycle& c) const {
  c.probabilities = selection_probabilities(c.metrics, o_.sigma);
  if (c.probabilities.empty()) all_failed(c);
  c.chosen = static_cast<std::int64_t>(draw_index(c.probabilities, c.seeds.selection_u));
  c.next = CycleStep::Extend;
}

void TrialSelection::first_improvement(ChainCycle& c) const {
  const std::span<const double> ran(c.values.data(), c.submitted);
  // unbind and unfold beat their ratchet; fold improves on the current anchor's distance to
  // the target.
  const bool ratchets = o_.probing != config::Probing::Fold;
  const double bar = ratchets ? memory_.ratchet : anchor_.metric;
  std::optional<std::size_t> improver;
  for (std::size_t k = 0; k < c.submitted && !improver; ++k) {
    if (std::isfinite(ran[k]) && ran[k] > bar) improver = k;
  }
  if (!improver && c.submitted < c.trials.size()) {
    c.next = CycleStep::Launch;
    return;
  }
  std::optional<std::size_t> best = improver;
  for (std::size_t k = 0; k < c.submitted && !improver; ++k) {
    if (std::isfinite(ran[k]) && (!best || ran[k] > ran[*best])) best = k;
  }
  if (!best) all_failed(c);
  c.chosen = static_cast<std::int64_t>(*best);
  c.probabilities.assign(c.submitted, 0.0);
  c.probabilities[*best] = 1.0;
  // unbind and unfold without an improver keep the best probe's end and skip τ2; fold always
  // extends (from the best probe; PathGennie's folder extended the last one).
  if (!improver && ratchets) {
    Anchor best_end{c.trials[*best]->final_state, c.trial_cvs[*best], c.metrics[*best]};
    best_end.state.velocities.clear();
    c.candidate = std::move(best_end);
    c.outcome = store::CycleOutcome::Trial;
    c.steps = o_.tau1_steps;
    c.tau2_metric = kNoValue;
    c.next = CycleStep::Guard;
    return;
  }
  c.next = CycleStep::Extend;
}

void TrialSelection::all_failed(const ChainCycle& c) const {
  const std::string first = c.trials.front() ? c.trials.front()->error : "";
  throw core::EngineError(fmt::format(
      "chain {}, cycle {}: all {} trials failed or gave no finite progress (trial 0: {}); the "
      "anchor may be unstable: check the structure, or lower pathgennie.tau1_steps or the "
      "time step",
      chain_, c.cycle, c.submitted, first.empty() ? "no finite CV" : first));
}

}  // namespace trails::swarm
