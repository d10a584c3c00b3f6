#include "trails/campaign/run_log.h"

#include <cmath>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "trails/binning/uniform_grid.h"
#include "trails/core/error.h"
#include "trails/core/fs.h"

namespace trails::campaign {

RunLog::RunLog(std::filesystem::path path, const config::CampaignConfig& config)
    : path_(std::move(path)),
      header_(header(config)),
      msm_(config.msm.enabled),
      recycling_(!config.spawning.recycle_target.empty()),
      tau_(config.spawning.step * config.engine.md.dt) {}

RunLog::~RunLog() {
  if (file_ != nullptr) std::fclose(file_);
}

std::string RunLog::header(const config::CampaignConfig& c) {
  const char* spawn_type = c.spawning.spawn_type == config::SpawnType::Hard ? "hard" : "soft";
  std::string h = "# Trails-MD run log\n";
  h += fmt::format("# written_by=trails {}\n", TRAILS_VERSION);
  h += fmt::format("# outdir={}\n", c.outdir.string());
  h += fmt::format("# md_engine={}\n", c.engine.md_engine);
  h += fmt::format("# space_mode={}\n", c.space_mode);
  h += fmt::format("# spawn_scheme={}\n", c.spawning.spawn_scheme);
  h += fmt::format("# spawn_type={}\n", spawn_type);
  h += fmt::format("# walker={}\n", c.spawning.walker);
  h += fmt::format("# step={}\n", c.spawning.step);
  h += fmt::format("# stride={}\n", c.spawning.stride);
  h += fmt::format("# dt={}\n", c.engine.md.dt);
  h += fmt::format("# n_bins={}\n", nlohmann::json(c.n_bins).dump());
  h += fmt::format("# min_values={}\n", nlohmann::json(c.min_values).dump());
  h += fmt::format("# max_values={}\n", nlohmann::json(c.max_values).dump());
  h += "iteration\trunner_s\tanalysis_s\ttotal_s\tsuccessful_walkers\tfailed_walkers\t"
       "frames_this_iteration\tcumulative_frames\toccupied_bins\ttotal_bins\t"
       "exploration_fraction\tspawn_indices\tcvs_file\ttrajectory_dir\tcheckpoint_dir";
  // Trails extension: the in-loop MSM's timing (the build joined in this iteration ran during
  // its MD when overlapped; wait is what the join blocked). NA in rows rewritten on resume.
  if (c.msm.enabled) h += "\tmsm_build_s\tmsm_wait_s";
  // Trails extension: weighted-ensemble recycling (docs/kinetics.md).
  if (!c.spawning.recycle_target.empty()) h += "\trecycled_flux\trecycled_walkers\tmfpt";
  h += "\n";
  return h;
}

std::string RunLog::row(const store::IterationSummary& it, bool msm) {
  const std::string shard = fmt::format("shards/iter_{:06d}.h5", it.iteration);
  const double fraction = binning::occupied_fraction(it.occupied_bins, it.total_bins);
  const auto num = [](double v) {
    return std::isnan(v) ? std::string("NA") : fmt::format("{:.6f}", v);
  };
  const std::string extra =
      msm ? "\t" + num(it.msm_build_s) + "\t" + num(it.msm_wait_s) : std::string();
  return fmt::format(
      "{}\t{:.6f}\t{:.6f}\t{:.6f}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.8f}\t{}\t{}\t{}\t{}{}\n",
      it.iteration, it.runner_s, it.analysis_s, it.runner_s + it.analysis_s, it.successful_walkers,
      it.failed_walkers, it.frames, it.cumulative_frames, it.occupied_bins, it.total_bins, fraction,
      nlohmann::json(it.spawn_pool_indices).dump(), shard, shard, "ledger.sqlite", extra);
}

std::string RunLog::recycling_columns(const store::IterationSummary& it) {
  if (!recycling_) return "";
  if (prefix_.empty()) prefix_.push_back(0.0);
  const double flux = it.recycled_flux.value_or(0.0);
  prefix_.push_back(prefix_.back() + flux);
  // analysis::steady_state_mfpt's rule on the series so far, from prefix sums (O(1) a row).
  const std::size_t n = prefix_.size() - 1;
  const auto skip = n / 2;
  const double mean = (prefix_[n] - prefix_[skip]) / static_cast<double>(n - skip);
  return fmt::format("\t{:.10g}\t{}\t{}", flux, it.recycled_walkers,
                     mean > 0.0 ? fmt::format("{:.6g}", tau_ / mean) : std::string("NA"));
}

void RunLog::rewrite(std::vector<store::IterationSummary> committed,
                     const std::vector<store::RecyclingRow>& recycling) {
  std::string text = header_;
  prefix_.clear();
  std::size_t r = 0;
  for (auto& it : committed) {
    while (r < recycling.size() && recycling[r].iteration < it.iteration) ++r;
    if (r < recycling.size() && recycling[r].iteration == it.iteration) {
      it.recycled_flux = recycling[r].flux;
      it.recycled_walkers = recycling[r].walkers;
    }
    const std::string line = row(it, msm_);
    text += line.substr(0, line.size() - 1) + recycling_columns(it) + "\n";
  }
  core::write_file_atomic(path_, text);
  if (file_ != nullptr) std::fclose(file_);
  file_ = std::fopen(path_.c_str(), "a");
  if (file_ == nullptr) throw core::StoreError("cannot open " + path_.string() + " for appending");
}

void RunLog::append(const store::IterationSummary& iteration) {
  TRAILS_CHECK(file_ != nullptr, "RunLog::append before rewrite");
  std::string line = row(iteration, msm_);
  line = line.substr(0, line.size() - 1) + recycling_columns(iteration) + "\n";
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() || std::fflush(file_) != 0) {
    throw core::StoreError("cannot append to " + path_.string());
  }
}

}  // namespace trails::campaign
