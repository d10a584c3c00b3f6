#include "trails/swarm/chain.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/rng.h"
#include "trails/swarm/selection.h"

namespace trails::swarm {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

CycleSeeds draw_cycle_seeds(std::uint64_t master_seed, int chain, std::int64_t cycle,
                            int n_trials) {
  // Chain k runs on master seed seed + k, so it is the same chain as a one-path run with that
  // seed (docs/swarm.md, "Reproducibility").
  core::Rng rng = core::Rng::stream(master_seed + static_cast<std::uint64_t>(chain), "swarm-cycle",
                                    static_cast<std::uint64_t>(cycle));
  CycleSeeds seeds;
  seeds.trials.reserve(static_cast<std::size_t>(n_trials));
  for (int i = 0; i < n_trials; ++i) seeds.trials.push_back(rng.next_u64());
  seeds.selection_u = rng.uniform();
  seeds.tau2 = rng.next_u64();
  return seeds;
}

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

Chain::Chain(int index, Anchor anchor, std::vector<double> start_cvs, ProgressMetric metric,
             std::vector<CvBound> bounds, std::int64_t first_cycle, std::int64_t path_steps,
             ChainMemory memory, bool done)
    : index_(index),
      anchor_(std::move(anchor)),
      start_cvs_(std::move(start_cvs)),
      metric_(std::move(metric)),
      cycle_(first_cycle),
      bounds_(std::move(bounds)),
      path_steps_(path_steps),
      memory_(memory),
      done_(done) {}

bool Chain::scored(const config::SwarmOptions& o, std::int64_t cycle) {
  return o.probing == config::Probing::Unfold && cycle < o.unfold_phase_cycles;
}

double Chain::value_of(const config::SwarmOptions& o, const Anchor& a, std::int64_t cycle) const {
  return scored(o, cycle) ? metric_.weighted_displacement(a.cvs) : a.metric;
}

ChainMemory Chain::fresh_memory(const config::SwarmOptions& o, const Anchor& start,
                                const ProgressMetric& metric) {
  ChainMemory m;
  // The start's value (PathGennie's unfolder began its score ratchet at −∞ and its distance
  // ratchet at 0: docs/swarm.md, "Legacy modes").
  m.ratchet = scored(o, 0) ? metric.weighted_displacement(start.cvs) : start.metric;
  m.stall_best = start.metric;
  m.steady_last = kNaN;
  return m;
}

engines::SegmentTask Chain::trial_task(const config::SwarmOptions& o, std::size_t i) const {
  engines::SegmentTask t;
  t.task_id = running_->first_task + static_cast<std::int64_t>(i);
  t.iteration = cycle_;
  t.walker = static_cast<std::int64_t>(i);
  t.start = anchor_.state;
  t.start.velocities.clear();  // a trial draws fresh Maxwell–Boltzmann velocities
  t.steps = o.tau1_steps;
  t.stride = o.tau1_steps;  // one frame: the trial's end
  t.seed = running_->seeds.trials[i];
  return t;
}

std::vector<engines::SegmentTask> Chain::next_batch(const config::SwarmOptions& o) {
  Running& r = *running_;
  const std::size_t end = std::min(r.trials.size(), r.submitted + static_cast<std::size_t>(batch_));
  std::vector<engines::SegmentTask> tasks;
  for (std::size_t i = r.submitted; i < end; ++i) tasks.push_back(trial_task(o, i));
  r.batch_left = end - r.submitted;
  r.submitted = end;
  return tasks;
}

std::vector<engines::SegmentTask> Chain::start_cycle(const config::SwarmOptions& o, int batch,
                                                     std::int64_t& next_task_id) {
  TRAILS_CHECK(!done_ && !running_, "start_cycle on a finished or busy chain");
  if (o.probing == config::Probing::Unfold && cycle_ == o.unfold_phase_cycles && cycle_ > 0) {
    // unfold's phase switch: from here probes must beat the anchor's distance from the start
    // (PathGennie's untouched ratchet of 0 accepted any probe), and the stagnation window
    // restarts, since the score and the distance are different quantities.
    memory_.ratchet = anchor_.metric;
    memory_.steady_last = kNaN;
    memory_.steady_count = 0;
  }
  Running r;
  r.cycle = cycle_;
  r.seeds = draw_cycle_seeds(o.seed, index_, cycle_, o.max_trial);
  r.first_task = next_task_id;
  r.trials.resize(static_cast<std::size_t>(o.max_trial));
  r.trial_cvs.resize(r.trials.size());
  r.metrics.assign(r.trials.size(), kNaN);
  r.values.assign(r.trials.size(), kNaN);
  r.started = std::chrono::steady_clock::now();
  running_ = std::move(r);
  // Trial i's task id is first_task + i (owns_trial): the cycle reserves N ids now.
  batch_ = o.probing == config::Probing::None ? o.max_trial : std::max(1, batch);
  next_task_id += o.max_trial;
  return next_batch(o);
}

bool Chain::owns_trial(std::int64_t task_id) const {
  return running_ && task_id >= running_->first_task &&
         task_id < running_->first_task + static_cast<std::int64_t>(running_->trials.size());
}

bool Chain::owns_tau2(std::int64_t task_id) const {
  return running_ && running_->tau2_task == task_id;
}

std::vector<double> Chain::cvs_of(const engines::SegmentResult& r,
                                  const features::Projection& projection) const {
  const std::size_t per_frame =
      static_cast<std::size_t>(r.n_atoms) * static_cast<std::size_t>(r.spatial_dim);
  const std::span<const double> last(r.frames.data() + r.frames.size() - per_frame, per_frame);
  std::span<const double> box;
  if (!r.frame_boxes.empty()) box = std::span<const double>(r.frame_boxes).last(9);
  std::vector<double> out;
  projection.project(last, 1, box, out);
  return out;
}

engines::SegmentTask Chain::tau2_task(const config::SwarmOptions& o, std::int64_t& next_task_id) {
  Running& r = *running_;
  const engines::SegmentResult& chosen = *r.trials[static_cast<std::size_t>(r.chosen)];
  engines::SegmentTask t;
  t.task_id = next_task_id++;
  t.iteration = r.cycle;
  t.walker = static_cast<std::int64_t>(r.submitted);  // the extension follows the trials run
  t.start = chosen.final_state;                       // velocities continued
  t.steps = o.tau2_steps;
  t.stride = o.tau2_steps;
  t.seed = r.seeds.tau2;
  r.tau2_task = t.task_id;
  return t;
}

Step Chain::take_trial(engines::SegmentResult result, const features::Projection& projection,
                       const config::SwarmOptions& o, std::int64_t& next_task_id) {
  Running& r = *running_;
  const auto i = static_cast<std::size_t>(result.task_id - r.first_task);
  if (result.ok() && result.n_frames > 0) {
    r.trial_cvs[i] = cvs_of(result, projection);
    r.metrics[i] = metric_(r.trial_cvs[i]);
    r.values[i] = scored(o, r.cycle) ? metric_.weighted_displacement(r.trial_cvs[i]) : r.metrics[i];
  }
  r.trials[i] = std::move(result);
  if (--r.batch_left > 0) return {};
  return after_batch(o, next_task_id);
}

// A batch is in: softmax over every trial, or the legacy modes' lowest-index improver (the
// answer of sequential first-improvement probing, whatever the batch size).
Step Chain::after_batch(const config::SwarmOptions& o, std::int64_t& next_task_id) {
  Running& r = *running_;
  const std::span<const double> ran(r.values.data(), r.submitted);
  Step step;
  if (o.probing == config::Probing::None) {
    r.probabilities = selection_probabilities(r.metrics, o.sigma);
    if (!r.probabilities.empty()) {
      r.chosen = static_cast<std::int64_t>(draw_index(r.probabilities, r.seeds.selection_u));
      step.tasks.push_back(tau2_task(o, next_task_id));
      return step;
    }
  } else {
    // unbind and unfold beat their ratchet; fold improves on the current anchor's distance to
    // the target.
    const bool ratchets = o.probing != config::Probing::Fold;
    const double bar = ratchets ? memory_.ratchet : anchor_.metric;
    std::optional<std::size_t> improver;
    for (std::size_t k = 0; k < r.submitted && !improver; ++k) {
      if (std::isfinite(ran[k]) && ran[k] > bar) improver = k;
    }
    if (!improver && r.submitted < r.trials.size()) {
      step.tasks = next_batch(o);
      return step;
    }
    std::optional<std::size_t> best = improver;
    for (std::size_t k = 0; k < r.submitted && !improver; ++k) {
      if (std::isfinite(ran[k]) && (!best || ran[k] > ran[*best])) best = k;
    }
    if (best) {
      r.chosen = static_cast<std::int64_t>(*best);
      r.probabilities.assign(r.submitted, 0.0);
      r.probabilities[*best] = 1.0;
      // unbind and unfold without an improver keep the best probe's end and skip τ2; fold
      // always extends (from the best probe; PathGennie's folder extended the last one).
      if (!improver && ratchets) {
        Anchor best_end{r.trials[*best]->final_state, r.trial_cvs[*best], r.metrics[*best]};
        best_end.state.velocities.clear();
        step.finished =
            finish(o, std::move(best_end), store::CycleOutcome::Trial, o.tau1_steps, kNaN, {});
        return step;
      }
      step.tasks.push_back(tau2_task(o, next_task_id));
      return step;
    }
  }
  const std::string first = r.trials.front() ? r.trials.front()->error : "";
  throw core::EngineError(fmt::format(
      "chain {}, cycle {}: all {} trials failed or gave no finite progress (trial 0: {}); the "
      "anchor may be unstable: check the structure, or lower pathgennie.tau1_steps or the "
      "time step",
      index_, r.cycle, r.submitted, first.empty() ? "no finite CV" : first));
}

FinishedCycle Chain::take_tau2(engines::SegmentResult result,
                               const features::Projection& projection,
                               const config::SwarmOptions& o) {
  Running& r = *running_;
  const auto k = static_cast<std::size_t>(r.chosen);
  const engines::SegmentResult& trial = *r.trials[k];
  Anchor extended;
  double tau2_metric = kNaN;
  if (result.ok() && result.n_frames > 0) {
    extended = Anchor{result.final_state, cvs_of(result, projection), 0.0};
    extended.state.velocities.clear();
    tau2_metric = extended.metric = metric_(extended.cvs);
  }
  Anchor candidate{trial.final_state, r.trial_cvs[k], r.metrics[k]};
  candidate.state.velocities.clear();
  store::CycleOutcome outcome = store::CycleOutcome::Trial;
  std::int64_t steps = o.tau1_steps;
  // reject_worse_tau2: the extension may not lose progress over the trial it extends; a failed
  // extension also falls back to the trial's end.
  if (std::isfinite(tau2_metric) &&
      !(o.reject_worse_tau2 && value_of(o, extended, r.cycle) < r.values[k])) {
    candidate = std::move(extended);
    outcome = store::CycleOutcome::Extended;
    steps += o.tau2_steps;
  }
  return finish(o, std::move(candidate), outcome, steps, tau2_metric, std::move(result));
}

FinishedCycle Chain::finish(const config::SwarmOptions& o, Anchor candidate,
                            store::CycleOutcome outcome, std::int64_t steps, double tau2_metric,
                            std::optional<engines::SegmentResult> tau2) {
  Running& r = *running_;
  if (o.reject_worse_anchor && value_of(o, candidate, r.cycle) < value_of(o, anchor_, r.cycle)) {
    outcome = store::CycleOutcome::KeptAnchor;
    steps = 0;
  } else {
    anchor_ = std::move(candidate);
  }
  path_steps_ += steps;
  // One ratchet rule for unbind and both unfold phases: the best value an anchor has had.
  const double value = value_of(o, anchor_, r.cycle);
  const bool ratchets =
      o.probing == config::Probing::Unbind || o.probing == config::Probing::Unfold;
  if (ratchets) memory_.ratchet = std::max(memory_.ratchet, value);
  const std::string stop = update_stall_rules(o, memory_, anchor_.metric, value);

  FinishedCycle f;
  store::CycleRecord& rec = f.record;
  rec.chain = index_;
  rec.cycle = r.cycle;
  rec.trial_metrics.assign(r.metrics.begin(),
                           r.metrics.begin() + static_cast<std::ptrdiff_t>(r.submitted));
  rec.probabilities = r.probabilities;
  rec.chosen = r.chosen;
  rec.entropy = entropy(r.probabilities);
  rec.tau2_metric = tau2_metric;
  rec.outcome = outcome;
  rec.anchor_metric = anchor_.metric;
  rec.anchor_cvs = anchor_.cvs;
  rec.reference = metric_.reference();
  rec.start_cvs = start_cvs_;
  rec.path_steps = path_steps_;
  rec.ratchet = ratchets ? memory_.ratchet : kNaN;
  std::function<bool()> function;
  if (convergence_function_) {
    function = [this] { return convergence_function_(anchor_.state.positions); };
  }
  rec.converged = converged(o, metric_, bounds_, r.cycle, anchor_.cvs, anchor_.metric, function);
  rec.stall_best = memory_.stall_best;
  rec.stall_count = memory_.stall_count;
  rec.steady_last = memory_.steady_last;
  rec.steady_count = memory_.steady_count;
  rec.stop = rec.converged ? "" : stop;
  rec.wall_s = seconds_since(r.started);
  for (std::size_t i = 0; i < r.submitted; ++i) {
    f.trials.push_back(std::move(*r.trials[i]));
    f.trial_seeds.push_back(r.seeds.trials[i]);
  }
  f.tau2 = std::move(tau2);
  f.tau2_seed = r.seeds.tau2;

  running_.reset();
  ++cycle_;
  done_ = rec.converged || !rec.stop.empty() || cycle_ >= o.max_cycle;
  return f;
}

}  // namespace trails::swarm
