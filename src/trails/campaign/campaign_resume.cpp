// Resume half of the campaign driver: the ledger's last committed state back into the driver's
// elements (docs/architecture.md, "Crash safety and resume"), and the state blobs each commit
// stores.
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "trails/campaign/campaign_driver.h"
#include "trails/campaign/preflight.h"
#include "trails/core/error.h"

namespace trails::campaign {

void CampaignDriver::resume() {
  store_.emplace(
      store::RunStore::open(config_.outdir, store::RunStore::Mode::ReadWrite, dir_lock_fd_));
  // Also in preflight(), which check --resume runs; the keys that may change are recorded with
  // the iteration they take effect in before anything else is written.
  resume_changes_ = check_resume_config(config_, *store_);
  // The store says how its shards keep positions; a run made before position grids keeps its
  // exact positions to the end (docs/file-formats.md, "Quantised positions").
  if (const double grid = store_->meta().position_precision;
      grid != record_policy_.position_precision) {
    spdlog::info(
        "output.position_precision: {} keeps {} positions in its shards, and so do the "
        "iterations this resume adds",
        config_.outdir.string(), grid > 0.0 ? fmt::format("{} grid", grid) : std::string("exact"));
    record_policy_.position_precision = grid;
  }
  if (!resume_changes_.empty()) store_->record_config_changes(resume_changes_, run_meta());

  const auto records = store_->load_iterations();
  if (records.empty()) {  // created, but stopped before iteration 0 was committed
    if (!space_) {
      tracker_.emplace(binning::UniformGrid(config_.n_bins, config_.min_values, config_.max_values),
                       config_.spawning.history_window);
    }
    set_initial_walkers();
  } else {
    // The same state the last commit wrote, each element's blob checked against its version.
    const auto state = store_->load_state(records.back().iteration, state_versions());
    restore_state(state);
    if (space_) {
      resume_learned_space(records);  // history in the current learned space, from the shards
      std::int64_t first = 0;         // the replayed history holds every committed frame, in order
      for (const auto& rec : records) {
        msm_->observe(first, ok_spans(rec));
        first += rec.n_frames();
      }
      msm_->set_space_version(space_->space_version());
    } else {
      tracker_.emplace(
          binning::UniformGrid(resolution_.n_bins(), config_.min_values, config_.max_values),
          config_.spawning.history_window);
      for (const auto& rec : records) {
        const auto spans = ok_spans(rec);
        const auto first = history_.append(rec.iteration, spans, rec.cvs);
        tracker_->add_latest(history_);
        msm_->observe(first, spans);
      }
    }
    if (state.contains("msm")) msm_->restore(state.at("msm"), history_);
    const auto& last = records.back();
    next_starts_ = resume_starts(last);
    if (config_.spawning.inherit_velocities) {  // the end states, as the uninterrupted run had
      std::vector<core::FrameKey> sources;
      for (const auto& s : last.spawns) sources.push_back(s.source);
      continue_end_states(sources, store_->load_final_states(last.iteration));
    }
    next_parents_.clear();
    for (const auto& s : last.spawns) next_parents_.emplace_back(s.source);
    next_iteration_ = last.iteration + 1;
  }
  log_ = std::make_unique<RunLog>(config_.outdir / "output.log", config_);
  log_->rewrite(store_->summaries(), store_->recycling());
}

void CampaignDriver::restore_state(const nlohmann::json& state) {
  resolution_.restore(state.at("resolution"));
  spawner_->restore(state.at("spawner"));
  if (space_) {
    space_->restore(state.at("space"), [this](std::int64_t iteration) {
      auto model =
          store_->load_element_state(iteration, "space_model", state_versions().at("space_model"));
      if (!model) {
        throw core::CorruptionError(config_.outdir.string() + ": iteration " +
                                    std::to_string(iteration) +
                                    " holds no space_model element, but the learned space's "
                                    "state says its model is stored there");
      }
      return *model;
    });
  }
  if (state.contains("packing")) {  // the search so far (workers_per_device: auto)
    packing_earlier_.clear();
    for (const auto& t : state.at("packing").at("trials")) {
      packing_earlier_.push_back(exec::trial_from_json(t));
    }
  }
}

const std::map<std::string, int>& CampaignDriver::state_versions() {
  static const std::map<std::string, int> versions = {
      {"spawner", 1}, {"resolution", 1}, {"target_iterations", 1}, {"space", 1}, {"space_model", 1},
      {"msm", 1},     {"packing", 1}};
  return versions;
}

nlohmann::json CampaignDriver::state_json() const {
  nlohmann::json state = {{"spawner", spawner_->state()},
                          {"resolution", resolution_.state()},
                          {"target_iterations", options_.target_iterations}};
  if (space_) state["space"] = space_->state();
  if (space_) {
    if (auto model = space_->new_model()) state["space_model"] = std::move(*model);
  }
  if (msm_->enabled()) state["msm"] = msm_->state();
  if (packing_) {  // with the engine's step, so reports can turn steps/s into ns/day
    state["packing"] = packing_->record();
    state["packing"]["dt"] = engine_->system().dt;
    state["packing"]["time_unit"] = engine_->system().time_unit;
  }
  return state;
}

std::vector<features::FrameHistory::WalkerSpan> CampaignDriver::ok_spans(
    const store::IterationRecord& rec) {
  std::vector<features::FrameHistory::WalkerSpan> spans;
  for (const auto& w : rec.walkers) {
    if (w.ok) spans.push_back({w.walker, w.n_frames});
  }
  return spans;
}

}  // namespace trails::campaign
