// `trails advise`: the measurements read from the ledger (read-only, committed iterations only,
// as `trails status` reads them) and the advice as JSON (advise.h, docs/advise.md). The text
// form is advise_format.cpp; the arithmetic is advise_model.cpp and advise_recommend.cpp.
#include "trails/report/advise/advise.h"
#include "trails/report/advise/advise_packing.h"

#include <cstdio>
#include <ctime>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/report/common/run_kind.h"
#include "trails/store/run_directory_lock.h"
#include "trails/store/run_store.h"

namespace trails::report {
namespace {

using nlohmann::json;

// Seconds since the epoch of an ISO 8601 UTC time as the ledger writes it
// ("2026-12-05T16:09:14.123Z"); nullopt for anything else.
std::optional<double> parse_utc(const std::string& text) {
  std::tm tm{};
  int ms = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &tm.tm_year, &tm.tm_mon,
                  &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) != 7) {
    return std::nullopt;
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<double>(timegm(&tm)) + ms / 1000.0;
}

// spawning.step of each iteration: the run's value now, undone through the changes made on
// resume (docs/reliability.md, "What may change on resume") for the iterations before each.
std::int64_t steps_of(std::int64_t iteration, std::int64_t now,
                      const std::vector<store::ConfigChange>& changes) {
  std::int64_t steps = now;
  for (auto c = changes.rbegin(); c != changes.rend(); ++c) {
    if (c->key == "spawning.step" && iteration < c->iteration && c->before.is_number_integer()) {
      steps = c->before.get<std::int64_t>();
    }
  }
  return steps;
}

// Commit and bookkeeping: the gap between two commits minus the next iteration's measured
// parts. A gap longer than twice those parts plus a second is a pause (a stopped and resumed
// run), not bookkeeping, and stays unknown (docs/advise.md, "Reading the table").
std::optional<double> other_of(std::optional<double> previous, std::optional<double> now,
                               double measured) {
  if (!previous || !now) return std::nullopt;
  const double other = *now - *previous - measured;
  if (other < -0.01 || other > std::max(1.0, measured)) return std::nullopt;
  return std::max(other, 0.0);
}

std::vector<analysis::IterationTiming> timings_of(
    const store::RunStore& store, const std::vector<store::IterationSummary>& summaries) {
  const auto& config = store.meta().config;
  const std::int64_t steps_now = config.at("spawning").at("step").get<std::int64_t>();
  const auto changes = store.config_changes();
  std::vector<analysis::IterationTiming> out;
  std::optional<double> previous_commit;
  for (const auto& s : summaries) {
    analysis::IterationTiming it;
    it.iteration = s.iteration;
    it.steps = steps_of(s.iteration, steps_now, changes);
    it.runner_s = s.runner_s;
    it.frame_s = s.analysis_s;
    const auto committed = parse_utc(s.committed_at);
    it.other_s = other_of(previous_commit, committed, s.runner_s + s.analysis_s);
    previous_commit = committed;
    for (const auto& w : store.walker_placements(s.iteration)) {
      it.walkers.push_back({w.startup_s, w.integrate_s, w.ok});
    }
    out.push_back(std::move(it));
  }
  return out;
}

// j[key] when it is an object, else an empty object (keys an older run did not record).
json object_at(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j.at(key).is_object() ? j.at(key) : json::object();
}

analysis::ExecutionSetup setup_of(const store::RunStore& store,
                                  const store::WalkerRecord* last_walker) {
  const auto& meta = store.meta();
  const json exec = object_at(meta.effective_config, "execution");
  const json spawning = object_at(meta.effective_config, "spawning");
  analysis::ExecutionSetup s;
  s.devices = exec.contains("devices") && exec.at("devices").is_array()
                  ? static_cast<int>(exec.at("devices").size())
                  : 0;
  // auto: the walkers per device the search uses now (run_advice fills it in).
  const json workers =
      exec.contains("workers_per_device") ? exec.at("workers_per_device") : json(1);
  s.workers_per_device = workers.is_number_integer() ? workers.get<int>() : 1;
  s.slots = s.devices > 0 ? s.devices * s.workers_per_device : spawning.value("max_workers", 1);
  s.persistent_workers = exec.value("persistent_workers", false);
  s.backend = exec.value("backend", "local");
  s.stride = spawning.value("stride", std::int64_t{1});
  const json& system = meta.engine_system;
  if (system.contains("n_atoms") && system["n_atoms"].is_number_integer()) {
    s.n_atoms = system["n_atoms"].get<std::int64_t>();
  }
  const json execution = object_at(system, "execution");
  s.mps_daemon = execution.value("mps_daemon", false);
  const json scheduler = object_at(execution, "scheduler");
  s.walkers_per_task = scheduler.value("walkers_per_task", 1);
  if (scheduler.contains("max_in_flight") && scheduler.at("max_in_flight").is_number_integer())
    s.tasks_in_flight = scheduler.at("max_in_flight").get<int>();
  if (s.backend != "local" && s.backend != "mpi") {
    // Array tasks run their walkers one after another (or on their devices' slots).
    const auto walkers = spawning.value("walker", std::int64_t{1});
    const auto tasks = (walkers + s.walkers_per_task - 1) / s.walkers_per_task;
    const auto at_once =
        s.tasks_in_flight ? std::min<std::int64_t>(*s.tasks_in_flight, tasks) : tasks;
    s.slots = static_cast<int>(std::max<std::int64_t>(
        1,
        std::min<std::int64_t>(walkers, at_once * std::max(1, s.devices * s.workers_per_device))));
  }
  if (execution.contains("engine_uses_devices")) {  // the engine's own answer, recorded at setup
    s.engine_uses_devices = execution.at("engine_uses_devices").get<bool>();
  } else if (last_walker != nullptr) {  // runs written before it was recorded: the GPU platforms
    const auto& p = last_walker->platform;
    s.engine_uses_devices = p == "CUDA" || p == "OpenCL" || p == "HIP";
  }
  return s;
}

json setup_json(const analysis::ExecutionSetup& s) {
  return {{"slots", s.slots},
          {"devices", s.devices},
          {"workers_per_device", s.workers_per_device},
          {"persistent_workers", s.persistent_workers},
          {"backend", s.backend},
          {"walkers_per_task", s.walkers_per_task},
          {"tasks_in_flight", s.tasks_in_flight ? json(*s.tasks_in_flight) : json()},
          {"stride", s.stride},
          {"n_atoms", s.n_atoms ? json(*s.n_atoms) : json()},
          {"gpu", s.engine_uses_devices},
          {"mps_daemon", s.mps_daemon}};
}

json row_json(const analysis::IterationBreakdown& b) {
  return {{"iteration", b.iteration},     {"walkers", b.walkers},
          {"wall_s", b.wall_s},           {"startup_s", b.startup_s},
          {"integrate_s", b.integrate_s}, {"idle_s", b.idle_s},
          {"frame_s", b.frame_s},         {"other_s", b.other_s ? json(*b.other_s) : json()}};
}

json model_json(const analysis::ModelFit& m) {
  return {{"first_iteration", m.first_iteration},
          {"last_iteration", m.last_iteration},
          {"walkers", m.walkers},
          {"steps", m.steps},
          {"slots", m.slots},
          {"startup_s", m.startup_s},
          {"mean_startup_s", m.mean_startup_s},
          {"step_s", m.step_s},
          {"dispatch_s", m.dispatch_s},
          {"frame_s", m.frame_s},
          {"other_s", m.other_s},
          {"iteration_s", analysis::model_iteration_s(m, m.walkers, m.steps, m.slots)},
          {"steps_per_s", analysis::model_steps_per_s(m, m.walkers, m.steps, m.slots)},
          {"startup_fraction", analysis::startup_fraction(m, m.steps)},
          {"equation", analysis::describe_model(m, m.walkers, m.steps, m.slots)}};
}

json advice_json(const analysis::Advice& a) {
  json recs = json::array();
  for (const auto& r : a.recommendations) {
    recs.push_back({{"key", r.key},
                    {"value", r.value},
                    {"current", r.current},
                    {"speedup", r.speedup},
                    {"reason", r.reason},
                    {"arithmetic", r.arithmetic},
                    {"note", r.note}});
  }
  json remarks = json::array();
  for (const auto& r : a.not_recommended) remarks.push_back({{"key", r.key}, {"why", r.why}});
  return {{"model", model_json(a.fit)},
          {"recommendations", recs},
          {"not_recommended", remarks},
          {"warnings", a.warnings}};
}

}  // namespace

json run_advice(const std::filesystem::path& run_dir, const analysis::AdviceOptions& options) {
  const auto run = open_campaign_run(
      run_dir, "trails advise",
      "models a campaign's iterations of walkers; a swarm's per-cycle timings are in trails "
      "status and path_k/metrics.csv");
  const auto& store = run.store;
  const auto summaries = store.summaries();
  if (summaries.empty()) {
    throw core::InputError(fmt::format(
        "{} has no committed iteration yet, so there is nothing to measure; run trails advise "
        "again once trails status shows one",
        run_dir.string()));
  }
  const auto timings = timings_of(store, summaries);
  const auto last_walkers = store.walker_placements(summaries.back().iteration);
  analysis::ExecutionSetup setup =
      setup_of(store, last_walkers.empty() ? nullptr : &last_walkers[0]);
  // workers_per_device: auto measured its packing (docs/execution.md): the model prices no
  // other k than the one the search runs.
  const auto packing = store.load_element_state(summaries.back().iteration, "packing", 1);
  analysis::AdviceOptions priced = options;
  if (packing) {
    setup.workers_per_device = packing_workers_per_device(*packing);
    setup.slots = setup.devices * setup.workers_per_device;
    priced.max_workers_per_device = setup.workers_per_device;
  }
  json out = advice_json(analysis::advise(timings, setup, priced));
  std::vector<analysis::IterationBreakdown> rows;
  json rows_json = json::array();
  for (const auto& t : timings) {
    rows.push_back(analysis::break_down(t, std::max(setup.slots, 1)));
    rows_json.push_back(row_json(rows.back()));
  }
  out["run_dir"] = std::filesystem::absolute(run_dir).string();
  out["running"] = trails::store::run_active(run_dir);  // store/run_directory_lock.h
  out["iterations_committed"] = summaries.size();
  out["execution"] = setup_json(setup);
  out["options"] = {{"startup_target", options.startup_target},
                    {"min_speedup", options.min_speedup}};
  out["breakdown"] = {{"iterations", rows_json}, {"total", row_json(analysis::total_of(rows))}};
  out["breakdown"]["total"].erase("iteration");
  if (packing) out["packing"] = packing_advice(*packing);
  return out;
}

}  // namespace trails::report
