#include "trails/swarm/chain_stop_rules.h"

#include <algorithm>

#include "trails/swarm/trial_scoring.h"

namespace trails::swarm {

ChainStopRules::ChainStopRules(const Anchor& anchor, const ProgressMetric& metric,
                               std::vector<CvBound> bounds, const config::SwarmOptions& options)
    : anchor_(anchor), metric_(metric), bounds_(std::move(bounds)), o_(options) {
  // The start's value (PathGennie's unfolder began its score ratchet at −∞ and its distance
  // ratchet at 0: docs/swarm.md, "Legacy modes").
  memory_.ratchet = judged_value(o_, metric_, anchor_, 0);
  memory_.stall_best = anchor_.metric;
  memory_.steady_last = kNoValue;
}

bool ChainStopRules::ratchets() const {
  return o_.probing == config::Probing::Unbind || o_.probing == config::Probing::Unfold;
}

void ChainStopRules::open_cycle(std::int64_t cycle) {
  if (o_.probing == config::Probing::Unfold && cycle == o_.unfold_phase_cycles && cycle > 0) {
    // unfold's phase switch: from here probes must beat the anchor's distance from the start
    // (PathGennie's untouched ratchet of 0 accepted any probe), and the stagnation window
    // restarts, since the score and the distance are different quantities.
    memory_.ratchet = anchor_.metric;
    memory_.steady_last = kNoValue;
    memory_.steady_count = 0;
  }
}

void ChainStopRules::run(ChainCycle& c) {
  // One ratchet rule for unbind and both unfold phases: the best value an anchor has had.
  const double value = judged_value(o_, metric_, anchor_, c.cycle);
  if (ratchets()) memory_.ratchet = std::max(memory_.ratchet, value);
  const std::string stop = update_stall_rules(o_, memory_, anchor_.metric, value);
  std::function<bool()> function;
  if (convergence_function_) {
    function = [this] { return convergence_function_(anchor_.state.positions); };
  }
  c.converged = converged(o_, metric_, bounds_, c.cycle, anchor_.cvs, anchor_.metric, function);
  c.stop = c.converged ? "" : stop;
  c.next = CycleStep::Record;
}

nlohmann::json ChainStopRules::state() const {
  nlohmann::json j;
  j["ratchet"] = store::record_number(ratchets() ? memory_.ratchet : kNoValue);
  j["stall_best"] = store::record_number(memory_.stall_best);
  j["stall_count"] = memory_.stall_count;
  j["steady_last"] = store::record_number(memory_.steady_last);
  j["steady_count"] = memory_.steady_count;
  return {{kKey.key, j}};
}

void ChainStopRules::restore(const nlohmann::json& state) {
  const nlohmann::json& j = state.at(kKey.key);
  memory_.ratchet = store::record_number_from(j.at("ratchet"));
  // Records written before the stall rules had none set.
  memory_.stall_best = store::record_number_from(j.value("stall_best", nlohmann::json(nullptr)));
  memory_.stall_count = j.value("stall_count", std::int64_t{0});
  memory_.steady_last = store::record_number_from(j.value("steady_last", nlohmann::json(nullptr)));
  memory_.steady_count = j.value("steady_count", std::int64_t{0});
}

}  // namespace trails::swarm
