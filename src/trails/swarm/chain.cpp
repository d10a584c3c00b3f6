#include "trails/swarm/chain.h"

#include "trails/core/error.h"

namespace trails::swarm {

engines::Configuration chain_start(const config::SwarmConfig& config, const engines::Engine& engine,
                                   int chain) {
  engines::Configuration c = engine.default_start();
  const auto points = config.start_points();
  if (!points.empty()) {
    c.positions = points.size() == 1 ? points.front() : points[static_cast<std::size_t>(chain)];
  }
  c.velocities.clear();
  return c;
}

Chain::Chain(int index, Anchor start, ProgressMetric metric, std::vector<CvBound> bounds,
             const features::Projection& projection, const config::SwarmOptions& options)
    : index_(index),
      o_(options),
      anchor_(std::move(start)),
      metric_(std::move(metric)),
      launch_(index_, anchor_, o_),
      scoring_(metric_, projection, o_),
      stop_rules_(anchor_, metric_, std::move(bounds), o_),
      selection_(index_, anchor_, stop_rules_.memory(), o_),
      extension_(metric_, projection, o_),
      guard_(anchor_, metric_, o_),
      recorder_(index_, anchor_, metric_, anchor_.cvs, checkpoint_clients()) {}

void Chain::resume(Anchor anchor, const store::CycleRecord& last) {
  anchor_ = std::move(anchor);
  const nlohmann::json committed = {{store::kCycleRecordKey, store::to_json(last)}};
  guard_.restore(committed);
  stop_rules_.restore(committed);
  cycle_ = last.cycle + 1;
  done_ = last.converged || !last.stop.empty() || cycle_ >= o_.max_cycle;
}

std::vector<const ChainElement*> Chain::elements() const {
  return {&launch_, &scoring_, &selection_, &extension_, &guard_, &stop_rules_, &recorder_};
}

ChainElement& Chain::element(CycleStep step) {
  switch (step) {
    case CycleStep::Launch:
      return launch_;
    case CycleStep::Score:
      return scoring_;
    case CycleStep::Select:
      return selection_;
    case CycleStep::Extend:
      return extension_;
    case CycleStep::Guard:
      return guard_;
    case CycleStep::Stop:
      return stop_rules_;
    case CycleStep::Record:
      return recorder_;
    case CycleStep::Wait:
      break;
  }
  throw core::InternalError("swarm chain: no element runs while the cycle waits");
}

std::vector<engines::SegmentTask> Chain::start_cycle(int batch, std::int64_t& next_task_id) {
  TRAILS_CHECK(!done_ && !running_, "start_cycle on a finished or busy chain");
  stop_rules_.open_cycle(cycle_);
  ChainCycle c;
  c.cycle = cycle_;
  c.batch = batch;
  c.next = CycleStep::Launch;
  running_ = std::move(c);
  return advance(next_task_id).tasks;
}

bool Chain::owns_trial(std::int64_t task_id) const {
  return running_ && task_id >= running_->first_task &&
         task_id < running_->first_task + static_cast<std::int64_t>(running_->trials.size());
}

bool Chain::owns_tau2(std::int64_t task_id) const {
  return running_ && running_->tau2_task == task_id;
}

Step Chain::take(engines::SegmentResult result, std::int64_t& next_task_id) {
  ChainCycle& c = *running_;
  c.next = owns_tau2(result.task_id) ? CycleStep::Extend : CycleStep::Score;
  c.arrived = std::move(result);
  return advance(next_task_id);
}

// Runs the cycle's elements from the step it is at until it waits for results or is finished.
Step Chain::advance(std::int64_t& next_task_id) {
  ChainCycle& c = *running_;
  c.next_task_id = next_task_id;
  while (c.next != CycleStep::Wait) {
    const CycleStep at = c.next;
    element(at).run(c);
    TRAILS_CHECK(c.next != at, "a swarm cycle element did not move the cycle on");
  }
  next_task_id = c.next_task_id;
  Step step;
  step.tasks = std::move(c.tasks);
  c.tasks.clear();
  if (c.finished) {
    step.finished = std::move(c.finished);
    running_.reset();
    ++cycle_;
    done_ = step.finished->record.converged || !step.finished->record.stop.empty() ||
            cycle_ >= o_.max_cycle;
  }
  return step;
}

}  // namespace trails::swarm
