// The first walkers of a new campaign (or of a resumed one that stopped before iteration 0):
// system.start, or frames of system.initial_trajectory picked as Trails-MD picks them
// (compat:initial-trajectory, docs/trails-md-compatibility.md).
#include <algorithm>
#include <span>

#include <fmt/format.h>

#include "trails/campaign/campaign_driver.h"
#include "trails/campaign/spawner_factory.h"
#include "trails/core/rng.h"
#include "trails/spawners/density_spawner.h"
#include "trails/trajio/trajectory.h"

namespace trails::campaign {

void CampaignDriver::load_initial_trajectory() {
  initial_frames_.clear();
  initial_seeding_.clear();
  // The engine-dependent checks `trails check` makes too (preflight.h), before any write.
  check_memory(config_, *engine_);
  const auto read = read_initial_trajectory(config_, *engine_);
  if (!read) return;
  const auto& path = config_.system.initial_trajectory;
  const auto& traj = *read;
  const auto n = static_cast<std::int64_t>(traj.frames.size());
  const int walkers = config_.spawning.walker;
  std::vector<std::int64_t> chosen;
  if (config_.system.project_file && !config_.learned_space() && n > walkers) {
    // compat:initial-trajectory: the project file gives the frames' CVs and the spawner picks W of
    // them.
    chosen = spawn_from_initial_trajectory(traj);
    initial_seeding_ = fmt::format(
        "{} of {} frames of {}, picked by the {} spawner over extract_cvs", walkers, n,
        path->filename().string(),
        config_.spawning.spawn_type == config::SpawnType::Hard ? "hard density" : "soft density");
  } else {
    // Trails-MD: linspace over the frames when there are enough, else random replication.
    auto rng = core::Rng::stream(config_.random_seed, "initial_trajectory");
    for (int w = 0; w < walkers; ++w) {
      chosen.push_back(
          n >= walkers ? (walkers == 1 ? 0 : static_cast<std::int64_t>(w) * (n - 1) / (walkers - 1))
                       : static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n))));
    }
    initial_seeding_ =
        fmt::format("{} of {} frames of {}, {}", walkers, n, path->filename().string(),
                    n >= walkers ? "evenly spaced" : "drawn at random");
  }
  std::string list;
  for (const auto f : chosen) list += fmt::format("{}{}", list.empty() ? "" : ", ", f);
  initial_seeding_ += " (frames " + list + ")";
  for (const auto f : chosen) {
    const auto& frame = traj.frames[static_cast<std::size_t>(f)];
    engines::Configuration c = engine_->default_start();
    c.positions = frame.positions_nm;
    c.velocities.clear();
    if (frame.box) {
      c.box.assign(frame.box->begin(), frame.box->end());
    }
    initial_frames_.push_back(std::move(c));
  }
}

std::vector<std::int64_t> CampaignDriver::spawn_from_initial_trajectory(
    const trajio::Trajectory& traj) const {
  const auto n = static_cast<std::int64_t>(traj.frames.size());
  std::vector<double> positions, boxes;
  const bool periodic = std::all_of(traj.frames.begin(), traj.frames.end(),
                                    [](const auto& f) { return f.box.has_value(); });
  for (const auto& f : traj.frames) {
    positions.insert(positions.end(), f.positions_nm.begin(), f.positions_nm.end());
    if (periodic) boxes.insert(boxes.end(), f.box->begin(), f.box->end());
  }
  // One trajectory, "iteration -1" (Trails-MD's history[-1]), through the campaign's projection.
  const features::WalkerFrames all{0, n};
  std::vector<double> cvs;
  projection_->project_iteration(-1, std::span<const features::WalkerFrames>(&all, 1), positions, n,
                                 boxes, cvs);
  features::FrameHistory frames(config_.cv_dimension());
  const features::FrameHistory::WalkerSpan span{0, n};
  frames.append(-1, std::span<const features::FrameHistory::WalkerSpan>(&span, 1), cvs);
  CoverageTracker bins(binning::UniformGrid(config_.n_bins, config_.min_values, config_.max_values),
                       std::nullopt);
  bins.add_latest(frames);
  spawners::DensitySpawner spawner(density_options(config_));
  core::Rng rng = core::Rng::stream(config_.random_seed, "initial_trajectory_spawn");
  // Through the pool, so an adaptive binning.scheme bins these frames as it bins a campaign's.
  const spawners::SpawnPool pool{frames, 0, bins.pool(), bins.grid()};
  return spawner.choose(pool, config_.spawning.walker, rng);
}

void CampaignDriver::set_initial_walkers() {
  const int walkers = config_.spawning.walker;
  const auto& start = config_.system.start;
  std::vector<engines::Configuration> starts;
  for (int w = 0; w < walkers; ++w) {
    engines::Configuration c = engine_->default_start();
    if (!start.empty()) c.positions = start.size() == 1 ? start[0] : start[w];
    if (!initial_frames_.empty()) c = initial_frames_[static_cast<std::size_t>(w)];
    starts.push_back(std::move(c));
  }
  starts_->start_with(std::move(starts));
  next_iteration_ = 0;
}

}  // namespace trails::campaign
