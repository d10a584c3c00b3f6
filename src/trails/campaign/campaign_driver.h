// Private to the campaign module: the state one run_campaign() call holds. Setup (a new run,
// the run loop) lives in campaign_setup.cpp, the first walkers in campaign_initial_walkers.cpp,
// resume in campaign_resume.cpp, one iteration's elements in campaign_iteration.cpp, the
// walkers' tasks and start configurations in campaign_walkers.cpp. Every element that carries
// state across iterations (spawner, resolution) is restored from the ledger's last committed
// state, so a resumed driver is indistinguishable from an uninterrupted one.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "trails/binning/resolution.h"
#include "trails/campaign/campaign.h"
#include "trails/campaign/coverage_tracker.h"
#include "trails/campaign/preflight.h"
#include "trails/campaign/run_log.h"
#include "trails/core/signals.h"
#include "trails/engines/engine.h"
#include "trails/exec/executor.h"
#include "trails/exec/local/device_plan.h"
#include "trails/exec/local/mps_probe.h"
#include "trails/exec/local/packing_tuner.h"
#include "trails/features/frame_history.h"
#include "trails/features/projection.h"
#include "trails/msm/msm_stage.h"
#include "trails/spaces/space_stage.h"
#include "trails/spawners/spawner.h"
#include "trails/store/run_store.h"
#include "trails/trajio/trajectory.h"

namespace trails::campaign {

// What one iteration's elements hand on to each other, in the order they run
// (CampaignDriver::compose_iteration).
struct IterationState {
  using Clock = std::chrono::steady_clock;
  std::int64_t iteration = 0;
  Clock::time_point t_start, t_analysis;
  std::vector<engines::SegmentTask> tasks;
  std::vector<engines::SegmentResult> results;  // by walker; frames moved into rec as collected
  std::vector<features::FrameHistory::WalkerSpan> spans;  // the ok walkers, in walker order
  store::IterationRecord rec;                             // what the commit writes
  std::optional<store::PendingShard> shard;  // rec's positions, appended as walkers finish
  store::ShardLayout shard_layout;           // what `shard` was begun with
  std::int64_t first_frame = 0;              // history index of this iteration's first frame
  std::vector<std::int64_t> chosen;          // history indices of the spawned frames
  std::optional<msm::MsmBuild> msm_built;    // the build joined in this iteration
  double runner_s = 0.0, msm_wait_s = 0.0, commit_s = 0.0;
  IterationReport report;
};

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
  // Joins the pending MSM build (if any) and records it in the store; returns its build time.
  std::optional<msm::MsmBuild> join_msm(double* wait_s);
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
  void restore_state(const nlohmann::json& state);
  nlohmann::json state_json() const;
  // Version of each element's state blob in state_json() (the run store checks it on resume).
  static const std::map<std::string, int>& state_versions();
  // The walker segments of a committed iteration (its ok walkers, in walker order).
  static std::vector<features::FrameHistory::WalkerSpan> ok_spans(
      const store::IterationRecord& rec);

  // campaign_iteration.cpp: one iteration as an ordered list of elements, chosen once from what
  // the run is (fixed or learned space, identity or molecular projection), run top to bottom.
  struct Element {
    const char* name;
    void (CampaignDriver::*run)(IterationState&);
  };
  std::vector<Element> compose_iteration() const;
  IterationReport run_iteration(std::int64_t iteration);
  void start_space_training(IterationState& it);  // a neural retrain, during this MD
  void run_segments(IterationState& it);
  void collect_segments(IterationState& it);  // failure policy, MSM join, the record's frames
  void project_frames(IterationState& it);    // fixed CV space
  // A walker with a non-finite CV fails alone: its frames leave the record and the shard, and
  // the failure policy decides again (docs/reliability.md, "Non-finite values").
  void fail_non_finite_cvs(IterationState& it);
  void fail_if_off_grid(engines::SegmentResult& r) const;
  void learn_space(IterationState& it);             // learned space: features and their projection
  void extend_history(IterationState& it);          // history, bins and MSM segments
  void extend_learned_history(IterationState& it);  // ... or all of it again after a retrain
  void follow_space_in_msm(IterationState& it);     // rebuild a model of a retired space
  void spawn(IterationState& it);
  void starts_from_cv_rows(IterationState& it);  // CV rows are coordinates (identity)
  void starts_from_frames(IterationState& it);   // full-precision frames
  void keep_starts_if_reduced(IterationState& it) const;
  void inherit_end_states(IterationState& it);  // spawning.inherit_velocities
  void update_coverage(IterationState& it);     // coverage, then the resolution ladder
  void start_msm_build(IterationState& it);
  void commit_iteration(IterationState& it);
  void log_iteration(IterationState& it);

  // campaign_walkers.cpp
  std::vector<engines::SegmentTask> make_tasks(std::int64_t iteration) const;
  void check_failures(std::int64_t iteration,
                      const std::vector<engines::SegmentResult>& results) const;
  // Start configurations of the chosen frames, read from their shards (positions at full
  // precision and the frame's box; used on resume and for frames of earlier iterations).
  // Stored frames or starts (positions and box) as the engine's start configurations.
  template <typename Stored>
  std::vector<engines::Configuration> configurations_of(std::vector<Stored>&& stored) const;
  std::vector<engines::Configuration> restart_configurations(
      const std::vector<store::SpawnChoice>& spawns) const;
  // Start configurations of this iteration's spawn choices: frames of `rec` (just produced) come
  // from memory, older ones from their shards.
  std::vector<engines::Configuration> next_configurations(const store::IterationRecord& rec) const;
  // The weight of each of the n walkers of the iteration being collected: the weighted spawner's
  // for its slots, else empty (equal weights).
  std::vector<double> slot_weights(std::size_t n) const;
  // spawning.inherit_velocities: each next start whose source is the end frame of a segment of
  // `finals` (that iteration's end states) continues that end state, positions, velocities and
  // box at full precision; slots the spawner recycled keep the basis and fresh velocities.
  void continue_end_states(const std::vector<core::FrameKey>& sources,
                           const std::vector<store::FinalState>& finals);
  // The time step recorded with each iteration (H5MD time = step × dt): the engine's own unit.
  double record_dt() const;
  // Start configurations of the iteration after `last` on resume: the stored spawn starts when
  // the record policy reduced the shards, else the spawned frames read from the shards.
  std::vector<engines::Configuration> resume_starts(const store::IterationRecord& last) const;

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

  // campaign_space.cpp (learned CV space only)
  void replay_learned_space();
  void rebuild_learned_space();
  void resume_learned_space(const std::vector<store::IterationRecord>& records);
  void make_learned_space();
  // One committed iteration's frames (positions and boxes) from its shard, for feature
  // recomputation.
  spaces::SpaceStage::Frames load_committed_frames(
      std::int64_t iteration, std::span<const features::FrameHistory::WalkerSpan> spans) const;

  const config::CampaignConfig& config_;
  RunOptions options_;
  ProgressSink& progress_;
  std::unique_ptr<engines::Engine> engine_;
  std::unique_ptr<features::Projection> projection_;
  store::RecordPolicy record_policy_;  // what the shards record (output block)
  std::unique_ptr<exec::Executor> executor_;
  // execution.workers_per_device: auto: executor_ is this tuner; its search is committed with
  // each iteration's state ("packing") and continued from there on resume.
  exec::PackingTuner* packing_ = nullptr;
  std::vector<exec::PackingTrial> packing_earlier_;
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

  features::FrameHistory history_;
  std::optional<CoverageTracker> tracker_;
  std::unique_ptr<features::FeatureSource>
      features_;  // learned spaces: the feature types (features_factory.h)
  std::optional<spaces::SpaceStage> space_;     // space_mode pca | tica
  std::unique_ptr<spawners::Spawner> spawner_;  // spawning.spawn_scheme (spawner_factory.h)
  binning::ResolutionController resolution_;
  std::unique_ptr<msm::MsmStage> msm_;  // in-loop MSM (msm/msm_stage.h); inert unless msm.enabled

  std::vector<Element> elements_;  // compose_iteration(), once set up
  std::int64_t next_iteration_ = 0;
  std::vector<engines::Configuration> next_starts_;
  std::vector<std::optional<core::FrameKey>> next_parents_;
  std::vector<double> iteration_seconds_;  // wall time of each iteration run now (for the ETA)
  std::vector<engines::Configuration> initial_frames_;  // system.initial_trajectory, when set
  std::vector<store::ConfigChange> resume_changes_;     // keys this --resume changed (banner)
  std::optional<std::int64_t> stopped_iteration_;       // the iteration a stop signal ended, if any
  std::size_t stopped_walkers_ = 0;  // its finished walkers kept in partial/ (partial_iteration.h)
  std::string initial_seeding_;      // how initial_frames_ were chosen (banner), or ""
};

}  // namespace trails::campaign
