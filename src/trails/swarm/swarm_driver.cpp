#include "trails/swarm/swarm_driver.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/signals.h"
#include "trails/engines/registry.h"
#include "trails/exec/backend.h"
#include "trails/exec/executor.h"
#include "trails/features/cv_projection.h"
#include "trails/store/run_store.h"
#include "trails/swarm/chain.h"
#include "trails/swarm/cycle_committer.h"
#include "trails/swarm/learned_projection.h"
#include "trails/swarm/pca_projection.h"
#include "trails/swarm/python_functions.h"
#include "trails/swarm/swarm_store.h"

namespace trails::swarm {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::unique_ptr<features::Projection> make_projection(const config::SwarmConfig& config,
                                                      const engines::Engine& engine) {
  const engines::EngineSystem& system = engine.system();
  if (!system.molecular) {
    return features::make_identity_projection(system.n_atoms * system.spatial_dim);
  }
  if (has_pca_model(config.md.cvs)) {
    return make_pca_model_projection(config.md.cvs, system.n_atoms,
                                     config.config_file.parent_path(),
                                     core::resolve_python(config.md.engine.python));
  }
  if (!system.topology) {
    throw core::ConfigError("cvs: the prepared system in " + system.prepared_dir.string() +
                            " has no topology, so CV selections cannot be resolved");
  }
  return features::make_cv_projection(config.md.cvs, *system.topology, system.reference_positions,
                                      config.md.system.conf_file, config.config_file.parent_path());
}

class SwarmRun {
 public:
  SwarmRun(const config::SwarmConfig& config, bool resume, SwarmProgress& progress)
      : config_(config), o_(config.swarm), resume_(resume), progress_(progress) {}

  SwarmOutcome run() {
    const auto t0 = Clock::now();
    setup();
    progress_.started(banner());
    const auto loop_start = Clock::now();
    try {
      loop(t0);
    } catch (const core::Interrupted& e) {
      throw interrupted(e.signal());
    }
    const double loop_s = std::chrono::duration<double>(Clock::now() - loop_start).count();
    SwarmOutcome outcome;
    for (std::size_t k = 0; k < chains_.size(); ++k) {
      outcome.chains.push_back(ChainOutcome{static_cast<int>(k), committed_cycles_[k],
                                            last_converged_[k], last_metric_[k], last_stop_[k]});
    }
    outcome.cycles_run = cycles_run_;
    outcome.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
    outcome.loop_s = loop_s;
    progress_.finished(outcome);
    return outcome;
  }

  // What a stop signal leaves (main prints the command that continues it): the cycles committed
  // so far stay, and `trails swarm CONFIG --resume` continues them; a fresh run that committed
  // none removes what it created (SwarmStore), so the same command starts it again.
  core::Interrupted interrupted(int signal) {
    committer_.reset();  // commits what finished before the signal (best effort), then joins
    const std::int64_t committed = store_->committed_cycles();
    const std::string how = "interrupted by " + core::signal_name(signal);
    if (committed == 0 && !resume_) {
      return core::Interrupted(
          signal, how + " before the first cycle was committed; nothing was kept", false);
    }
    return core::Interrupted(
        signal,
        fmt::format("{}: {} cycle(s) committed in {}", how, committed, config_.workdir.string()),
        true);
  }

  // `trails check`: everything setup() checks before the store opens, with the engine prepared
  // in `scratch` instead of the run directory.
  void check(const std::filesystem::path& scratch) {
    checking_ = true;
    import_python();
    prepare(scratch);
  }

 private:
  void import_python() {
    if (o_.projection || o_.convergence_function) {
      // PathGennie's Python functions: imported before anything is written.
      python_ = std::make_shared<PythonFunctions>(config_);
      python_->check_imports();
    }
  }

  void setup() {
    import_python();
    store_ = std::make_unique<SwarmStore>(config_, resume_);
    prepare(config_.workdir);
    store_->open(*engine_, projection_->column_names(), cv_model_);
    const std::vector<store::CycleRecord> history = store_->history();
    const auto k_chains = static_cast<std::size_t>(o_.paths);
    committed_cycles_.assign(k_chains, 0);
    last_converged_.assign(k_chains, false);
    last_stop_.assign(k_chains, "");
    last_metric_.assign(k_chains, 0.0);
    anchor_keys_.assign(k_chains, std::nullopt);
    std::vector<const store::CycleRecord*> last(k_chains, nullptr);
    for (const auto& r : history) last[static_cast<std::size_t>(r.chain)] = &r;
    for (std::size_t k = 0; k < k_chains; ++k) {
      chains_.push_back(make_chain(k, last[k]));
      if (o_.convergence_function) {
        chains_.back()->set_convergence_function(
            [python = python_](std::span<const double> x) { return python->converged(x); });
      }
    }
    pending_.resize(k_chains);
    committed_total_ = static_cast<std::int64_t>(history.size());
  }

  // The engine prepared in `dir`, the Python functions called on the start structure, the CV
  // projection and its per-CV keys, the executor (devices): the checks before the store opens.
  void prepare(const std::filesystem::path& dir) {
    engine_ = engines::make_engine(config_.engine_spec(), dir);
    if (python_) python_->check_on(chain_start(config_, *engine_, 0).positions);
    if (o_.projection) {
      projection_ = PythonFunctions::projection(python_);
    } else if (o_.learned_projection) {
      LearnedCv learned = make_learned_projection(*o_.learned_projection, *engine_);
      projection_ = std::move(learned.projection);
      cv_model_ = std::move(learned.identity);
    } else {
      projection_ = make_projection(config_, *engine_);
    }
    // One value per CV: the target point, the unfold weights.
    const auto check_per_cv = [&](bool used, const std::vector<double>& v, const char* key,
                                  const char* what) {
      if (used && static_cast<int>(v.size()) != projection_->dimension()) {
        throw core::ConfigError(fmt::format(
            "{}: pathgennie.{} has {} values but the CVs give {} columns; give one {} per CV",
            config_.config_file.string(), key, v.size(), projection_->dimension(), what));
      }
    };
    check_per_cv(o_.mode == config::SwarmMode::Target, o_.target_projection, "target_projection",
                 "value");
    check_per_cv(o_.probing == config::Probing::Unfold, o_.unfold_weights, "unfold_weights",
                 "weight");
    bounds_ = resolve_cv_bounds(o_, projection_->column_names(), config_.config_file.string());
    // Devices are checked (CUDA_VISIBLE_DEVICES) and worker processes or ranks started before
    // anything is stored, by the one backend table (docs/execution.md, "The swarm and the
    // backends"); `trails check` only resolves the devices (it may run without the ranks).
    const config::ExecutionSpec spec = config::execution_spec_of(config_);
    if (checking_) {
      (void)exec::device_plan_of(spec);
      return;
    }
    executor_ = exec::make_executor(spec, *engine_,
                                    engines::worker_engine_setup(config_.engine_spec(), dir));
    n_slots_ = executor_->slots().size();
    slots_note_ = exec::slots_note(spec);
  }

  std::unique_ptr<Chain> make_chain(std::size_t k, const store::CycleRecord* last) {
    const int chain = static_cast<int>(k);
    Anchor start{chain_start(config_, *engine_, chain), {}, 0.0};
    std::vector<double> xi0;
    projection_->project(start.state.positions, 1, start.state.box, xi0);
    std::vector<double> reference =
        o_.mode == config::SwarmMode::Target ? o_.target_projection : xi0;
    ProgressMetric metric(
        o_.mode, o_.escape_metric, reference, projection_->periods(),
        o_.probing == config::Probing::Unfold ? o_.unfold_weights : std::vector<double>{});
    start.cvs = xi0;
    start.metric = metric(xi0);
    auto out = std::make_unique<Chain>(chain, start, std::move(metric), bounds_, *projection_, o_);
    if (last == nullptr) return out;
    // Resume: the anchor of the last committed cycle, read back from its stored frame.
    Anchor anchor = start;
    if (last->anchor) anchor.state = store_->anchor_state(*last->anchor, start.state);
    anchor.cvs = last->anchor_cvs;
    anchor.metric = last->anchor_metric;
    committed_cycles_[k] = last->cycle + 1;
    last_converged_[k] = last->converged;
    last_metric_[k] = last->anchor_metric;
    anchor_keys_[k] = last->anchor;
    last_stop_[k] = last->stop;
    out->resume(std::move(anchor), *last);
    return out;
  }

  std::vector<std::string> banner() const {
    std::vector<std::string> lines;
    lines.push_back(fmt::format("trails swarm {}", config_.config_file.string()));
    lines.push_back(
        fmt::format("  run dir     {}{}", config_.workdir.string(), resume_ ? " (resumed)" : ""));
    lines.push_back(fmt::format("  engine      {}", engine_->describe()));
    const std::string selection =
        o_.probing == config::Probing::None
            ? fmt::format("softmax sigma {}", o_.sigma)
            : fmt::format("first improvement, probes in batches of {}",
                          o_.probe_batch > 0 ? o_.probe_batch : static_cast<int>(n_slots_));
    lines.push_back(
        fmt::format("  swarm       {} mode, {} trial(s) x {} steps, extension {} steps, {}",
                    config::mode_name(o_), o_.max_trial, o_.tau1_steps, o_.tau2_steps, selection));
    lines.push_back(fmt::format("  chains      {} (up to {} cycles each), {} slot(s){}", o_.paths,
                                o_.max_cycle, n_slots_, slots_note_));
    if (!cv_model_.is_null()) {
      lines.push_back(fmt::format("  cvs         the {}-feature model of iteration {} of {}",
                                  cv_model_.value("n_features", 0),
                                  cv_model_.value("iteration", std::int64_t{0}),
                                  cv_model_.value("run", std::string())));
    }
    // Keys accepted without effect (docs/trails-md-compatibility.md#compat-ignored-keys).
    for (const auto& note : config_.notes) lines.push_back("  note        " + note);
    return lines;
  }

  // The chain whose next cycle is next in (cycle, chain) order, among chains with cycles left to
  // commit; -1 when every chain is finished and committed.
  int next_to_commit() const {
    int best = -1;
    for (std::size_t k = 0; k < chains_.size(); ++k) {
      const bool left = !pending_[k].empty() || !chains_[k]->done();
      if (!left) continue;
      if (best < 0 || committed_cycles_[k] < committed_cycles_[static_cast<std::size_t>(best)]) {
        best = static_cast<int>(k);
      }
    }
    return best;
  }

  // Hands the finished cycles that are next in (cycle, chain) order to the committer.
  void commit_ready() {
    for (int k = next_to_commit(); k >= 0 && !pending_[static_cast<std::size_t>(k)].empty();
         k = next_to_commit()) {
      const auto kk = static_cast<std::size_t>(k);
      FinishedCycle f = std::move(pending_[kk].front());
      pending_[kk].pop_front();
      ++committed_cycles_[kk];
      ++cycles_run_;
      last_converged_[kk] = f.record.converged;
      last_stop_[kk] = f.record.stop;
      last_metric_[kk] = f.record.anchor_metric;
      f.chains_running = static_cast<int>(
          std::count_if(chains_.begin(), chains_.end(), [](const auto& c) { return !c->done(); }));
      committer_->push(std::move(f));
    }
  }

  void report(const FinishedCycle& f, std::int64_t committed, Clock::time_point t0) {
    CycleReport r;
    r.chain = f.record.chain;
    r.cycle = f.record.cycle;
    r.anchor_metric = f.record.anchor_metric;
    r.converged = f.record.converged;
    r.chains_running = f.chains_running;
    r.cycles_committed = committed;
    r.cycles_total = static_cast<std::int64_t>(o_.paths) * o_.max_cycle;
    r.elapsed_s = std::chrono::duration<double>(Clock::now() - t0).count();
    progress_.cycle(r);
  }

  // Work order: extensions first (each holds up its chain), then trials in (cycle, chain) order.
  void queue_new_cycles() {
    for (auto& chain : chains_) {
      if (chain->done() || chain->busy()) continue;
      const int batch = o_.probe_batch > 0 ? o_.probe_batch : static_cast<int>(n_slots_);
      for (auto& t : chain->start_cycle(batch, next_task_id_)) trials_.push_back(std::move(t));
    }
    std::stable_sort(trials_.begin(), trials_.end(),
                     [](const auto& a, const auto& b) { return a.iteration < b.iteration; });
  }

  void submit_ready(exec::Executor& executor) {
    while (executor.in_flight() < executor.slots().size() && (!tau2_.empty() || !trials_.empty())) {
      std::deque<engines::SegmentTask>& from = tau2_.empty() ? trials_ : tau2_;
      executor.submit(std::move(from.front()));
      from.pop_front();
    }
  }

  void take(engines::SegmentResult result) {
    for (auto& chain : chains_) {
      if (!chain->owns(result.task_id)) continue;
      Step step = chain->take(std::move(result), next_task_id_);
      // An extension jumps the queue; a further batch of probes joins the trials.
      for (auto& t : step.tasks)
        (chain->owns_tau2(t.task_id) ? tau2_ : trials_).push_back(std::move(t));
      if (step.finished)
        pending_[static_cast<std::size_t>(chain->index())].push_back(std::move(*step.finished));
      return;
    }
    throw core::InternalError("swarm: a result for unknown task " + std::to_string(result.task_id));
  }

  void loop(Clock::time_point t0) {
    auto executor = std::move(executor_);
    committer_ = std::make_unique<CycleCommitter>(
        *store_, anchor_keys_, committed_total_,
        [this, t0](const FinishedCycle& f, std::int64_t n) { report(f, n, t0); });
    while (true) {
      core::throw_if_stop_requested();
      committer_->check();
      queue_new_cycles();
      submit_ready(*executor);
      commit_ready();
      if (next_to_commit() < 0) break;
      std::optional<engines::SegmentResult> result = executor->next_completed();
      // After a stop a result may be one the stop ended (a Failed trial or extension): taking
      // it could finish its cycle differently from an uninterrupted run, so the cycle is left
      // uncommitted and --resume runs it again.
      core::throw_if_stop_requested();
      if (!result) {
        throw core::InternalError("swarm: nothing in flight while cycles remain");
      }
      take(std::move(*result));
    }
    committer_->finish();
  }

  const config::SwarmConfig& config_;
  const config::SwarmOptions& o_;
  bool resume_;
  SwarmProgress& progress_;
  std::unique_ptr<SwarmStore> store_;
  std::unique_ptr<CycleCommitter> committer_;  // declared after store_: destroyed first
  std::unique_ptr<engines::Engine> engine_;
  std::shared_ptr<PythonFunctions> python_;  // PathGennie's projection/convergence functions
  std::unique_ptr<features::Projection> projection_;
  nlohmann::json cv_model_;  // projection.model: which stored model (learned_projection.h)
  std::unique_ptr<exec::Executor> executor_;  // handed to loop()
  std::size_t n_slots_ = 1;
  std::string slots_note_;  // " (MPI ranks)", " (persistent processes)" or ""
  bool checking_ = false;   // trails check: no executor is started
  std::vector<std::unique_ptr<Chain>> chains_;
  std::vector<std::deque<FinishedCycle>> pending_;
  std::vector<std::int64_t> committed_cycles_;  // per chain: the next cycle to commit
  std::vector<bool> last_converged_;
  std::vector<std::string> last_stop_;
  std::vector<CvBound> bounds_;  // convergence.cv_at_most / cv_at_least, resolved
  std::vector<double> last_metric_;
  std::vector<std::optional<core::FrameKey>> anchor_keys_;  // per chain: the committed anchor
  std::deque<engines::SegmentTask> tau2_;
  std::deque<engines::SegmentTask> trials_;
  std::int64_t next_task_id_ = 0;
  std::int64_t committed_total_ = 0;
  std::int64_t cycles_run_ = 0;
};

}  // namespace

SwarmOutcome run_swarm(const config::SwarmConfig& config, bool resume, SwarmProgress& progress) {
  return SwarmRun(config, resume, progress).run();
}

void check_swarm(const config::SwarmConfig& config, const std::filesystem::path& scratch) {
  struct Silent final : SwarmProgress {
    void started(const std::vector<std::string>& /*banner*/) override {}
    void cycle(const CycleReport& /*report*/) override {}
    void finished(const SwarmOutcome& /*outcome*/) override {}
  } silent;
  SwarmRun(config, false, silent).check(scratch);
}

}  // namespace trails::swarm
