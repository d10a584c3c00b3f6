// Private to the campaign module: the state one run_campaign() call holds. Setup (a new run,
// the run loop) lives in campaign_setup.cpp, the first walkers in campaign_initial_walkers.cpp,
// resume in campaign_resume.cpp, the iteration list and its stateless steps in
// campaign_iteration.cpp, the failure policy in campaign_walkers.cpp. The elements (coverage,
// spawn, start states, MSM, learned space, packing, commit: campaign_element.h,
// docs/architecture.md "Campaign elements") own their state and are restored from the ledger's
// last committed state, so a resumed driver is indistinguishable from an uninterrupted one; the
// driver itself only orchestrates.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "trails/campaign/campaign.h"
#include "trails/campaign/campaign_element.h"
#include "trails/campaign/commit_element.h"
#include "trails/campaign/coverage_element.h"
#include "trails/campaign/iteration_state.h"
#include "trails/campaign/learned_space_element.h"
#include "trails/campaign/msm_element.h"
#include "trails/campaign/packing_state.h"
#include "trails/campaign/preflight.h"
#include "trails/campaign/run_log.h"
#include "trails/campaign/spawn_element.h"
#include "trails/campaign/start_states_element.h"
#include "trails/core/signals.h"
#include "trails/engines/engine.h"
#include "trails/exec/executor.h"
#include "trails/exec/local/device_plan.h"
#include "trails/exec/local/mps_probe.h"
#include "trails/features/frame_history.h"
#include "trails/features/projection.h"
#include "trails/store/run_store.h"
#include "trails/trajio/trajectory.h"

namespace trails::campaign {

class CampaignDriver {
 public:
  CampaignDriver(const config::CampaignConfig& config, const RunOptions& options,
                 ProgressSink& progress);
  ~CampaignDriver();
  CampaignOutcome run();

 private:
  // campaign_setup.cpp
  CampaignOutcome run_locked();  // run() under the lock
  // What a stop signal leaves: what was committed (main adds the command to continue);
  // `abandoned`: a store this run created was removed by abandon_uncommitted().
  core::Interrupted interrupted(int signal, bool abandoned) const;
  bool abandon_uncommitted(const std::filesystem::path& created);
  // Every path below dir, relative to it (what an existing outdir held before the run).
  static std::set<std::string> tree_of(const std::filesystem::path& dir);
  // What the ledger's meta records about this run: the current configuration and system.
  store::RunMeta run_meta() const;
  void start_new();
  std::vector<std::string> banner() const;
  void write_outcome(const CampaignOutcome& outcome) const;
  void record_msm_build(const msm::MsmBuild& built);  // into the ledger

  // campaign_initial_walkers.cpp
  void set_initial_walkers();
  void load_initial_trajectory();
  // compat:initial-trajectory with a project file: the frames' extract_cvs CVs on the campaign
  // grid, W of them chosen by a fresh density spawner (own RNG stream); indices into the
  // trajectory.
  std::vector<std::int64_t> spawn_from_initial_trajectory(const trajio::Trajectory& traj) const;

  // campaign_resume.cpp
  void resume();

  // campaign_iteration.cpp: one iteration as an ordered list of elements, chosen once from what
  // the run is (fixed or learned space, identity or molecular projection), run top to bottom.
  void compose_iteration();  // iteration_, steps_ and commit_
  // A stateless step of the list, bound to a driver function.
  IterationElement* step(std::string name, void (CampaignDriver::*run)(IterationState&));
  IterationReport run_iteration(std::int64_t iteration);
  void run_segments(IterationState& it);
  void collect_segments(IterationState& it);  // failure policy, MSM join, the record's frames
  void project_frames(IterationState& it);    // fixed CV space
  // A walker with a non-finite CV fails alone: its frames leave the record and the shard, and
  // the failure policy decides again (docs/reliability.md, "Non-finite values").
  void fail_non_finite_cvs(IterationState& it);
  void fail_if_off_grid(engines::SegmentResult& r) const;
  void extend_history(IterationState& it);          // history, bins and MSM segments
  void extend_learned_history(IterationState& it);  // ... or all of it again after a retrain
  void follow_space_in_msm(IterationState& it);     // rebuild a model of a retired space
  void log_iteration(IterationState& it);

  // campaign_walkers.cpp: the failure policy over the walkers' results
  void check_failures(std::int64_t iteration,
                      const std::vector<engines::SegmentResult>& results) const;
  // The time step recorded with each iteration (H5MD time = step × dt): the engine's own unit.
  double record_dt() const;

  // campaign_execution.cpp: devices, the executor, progress inside an iteration
  // Resolves execution.devices through CUDA_VISIBLE_DEVICES and probes for MPS; first thing
  // in a run, so a device that does not exist fails before anything is written.
  void plan_devices();
  void start_executor();  // the executor for the engine, once it exists; logs packing warnings
  nlohmann::json execution_record() const;  // for the ledger's engine_system
  std::optional<std::string> devices_banner() const;
  // Publishes how far this iteration's walkers are (progress sink and progress.json).
  void report_walkers(std::int64_t iteration, int done, int failed,
                      IterationState::Clock::time_point t0);

  const config::CampaignConfig& config_;
  RunOptions options_;
  ProgressSink& progress_;
  std::unique_ptr<engines::Engine> engine_;
  std::unique_ptr<features::Projection> projection_;
  store::RecordPolicy record_policy_;  // what the shards record (output block)
  std::unique_ptr<exec::Executor> executor_;
  // execution.workers_per_device: auto: executor_ is a tuner, whose search is committed with
  // each iteration's state and continued from there on resume.
  PackingState packing_;
  exec::ExecutionOptions execution_;
  exec::DevicePlan device_plan_;
  exec::MpsStatus mps_;
  IterationState::Clock::time_point progress_written_{};  // progress.json throttle
  bool progress_write_failed_ = false;                    // warned once
  std::optional<store::RunStore> store_;
  std::unique_ptr<RunLog> log_;
  std::set<std::string> preexisting_;  // tree_of(outdir) when a fresh run found it existing
  int dir_lock_fd_ = -1;  // flock on outdir, taken before anything is created (the store
                          // shares it and adds the ledger's: store/run_directory_lock.h)

  features::FrameHistory history_;  // shared data: every element reads it, none owns it
  // The stateful elements (docs/architecture.md, "Campaign elements"), each owning its state.
  std::unique_ptr<MsmElement> msm_;  // in-loop MSM; inert unless msm.enabled
  std::unique_ptr<SpawnElement> spawn_;
  std::unique_ptr<CoverageElement> coverage_;
  std::unique_ptr<LearnedSpaceElement> space_;  // space_mode other than fixed
  std::unique_ptr<StartStatesElement> starts_;  // the next walkers
  std::unique_ptr<CommitElement> commit_;
  std::vector<CheckpointClient*> clients_;                // the stateful elements, in restore order
  std::vector<std::unique_ptr<IterationElement>> steps_;  // the stateless steps
  std::vector<IterationElement*> iteration_;              // compose_iteration(): the list
  std::int64_t next_iteration_ = 0;
  std::vector<double> iteration_seconds_;  // wall time of each iteration run now (for the ETA)
  std::vector<engines::Configuration> initial_frames_;  // system.initial_trajectory, when set
  std::vector<store::ConfigChange> resume_changes_;     // keys this --resume changed (banner)
  std::optional<std::int64_t> stopped_iteration_;       // the iteration a stop signal ended, if any
  std::size_t stopped_walkers_ = 0;  // its finished walkers kept in partial/ (partial_iteration.h)
  std::string initial_seeding_;      // how initial_frames_ were chosen (banner), or ""
};

}  // namespace trails::campaign
