// Resume half of the campaign driver: the ledger's last committed state back into the driver's
// elements (docs/architecture.md, "Crash safety and resume"): each element restores its own
// keyed blobs (checkpoint.h), the history and the bin tables are rebuilt from the records, and
// the next walkers start where the uninterrupted run's would.
#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "trails/campaign/campaign_driver.h"
#include "trails/campaign/checkpoint.h"
#include "trails/campaign/preflight.h"

namespace trails::campaign {
namespace {

std::string precision_words(double grid) {
  return grid > 0.0 ? fmt::format("{} grid", grid) : std::string("exact");
}

nlohmann::json precision_json(double grid) {
  return grid > 0.0 ? nlohmann::json(grid) : nlohmann::json("exact");
}

}  // namespace

void CampaignDriver::resume() {
  store_.emplace(
      store::RunStore::open(config_.outdir, store::RunStore::Mode::ReadWrite, dir_lock_fd_));
  // Also in preflight(), which check --resume runs; the keys that may change are recorded with
  // the iteration they take effect in before anything else is written.
  resume_changes_ = check_resume_config(config_, *store_);
  // Once an iteration is committed the store says how its shards keep positions; a run made
  // before position grids keeps its exact positions to the end. Before that nothing was stored
  // on the old grid, so the configuration's value holds, recorded as a change
  // (docs/file-formats.md, "Quantised positions").
  if (const double grid = store_->meta().position_precision;
      grid != record_policy_.position_precision) {
    if (store_->last_committed()) {
      spdlog::info(
          "output.position_precision: {} keeps {} positions in its shards, and so do the "
          "iterations this resume adds",
          config_.outdir.string(), precision_words(grid));
      record_policy_.position_precision = grid;
    } else if (std::none_of(resume_changes_.begin(), resume_changes_.end(),
                            [](const store::ConfigChange& c) {
                              return c.key == "output.position_precision";
                            })) {
      // A run made before position grids whose file leaves the key out: the default applies.
      resume_changes_.push_back({0, "output.position_precision", precision_json(grid),
                                 precision_json(record_policy_.position_precision), ""});
    }
  }
  if (!resume_changes_.empty()) store_->record_config_changes(resume_changes_, run_meta());

  const auto records = store_->load_iterations();
  if (records.empty()) {  // created, but stopped before iteration 0 was committed
    if (!space_) coverage_->start_uniform_grid();
    set_initial_walkers();
  } else {
    // The same state the last commit wrote, each element's blob checked against its version.
    const auto state = store_->load_state(records.back().iteration, campaign_state_versions());
    restore_clients(clients_, state, CheckpointClient::RestorePhase::Early);
    if (space_) {
      space_->resume(records);  // history in the current learned space, from the shards
      std::int64_t first = 0;   // the replayed history holds every committed frame, in order
      for (const auto& rec : records) {
        msm_->observe(first, ok_spans(rec));
        first += rec.n_frames();
      }
    } else {
      coverage_->start_uniform_grid();  // on the ladder's restored bins
      for (const auto& rec : records) {
        const auto spans = ok_spans(rec);
        const auto first = history_.append(rec.iteration, spans, rec.cvs);
        coverage_->add_latest();
        msm_->observe(first, spans);
      }
    }
    if (space_) msm_->set_space_version(space_->stage().space_version());
    restore_clients(clients_, state, CheckpointClient::RestorePhase::AfterHistory);
    starts_->resume(records.back());
    next_iteration_ = records.back().iteration + 1;
  }
  log_ = std::make_unique<RunLog>(config_.outdir / "output.log", config_);
  log_->rewrite(store_->summaries(), store_->recycling());
}

}  // namespace trails::campaign
