// The campaign's run store: an SQLite ledger (WAL) plus one HDF5/H5MD coordinate shard per
// iteration. Commit protocol: shard written as shards/iter_N.h5.tmp, fsync, rename, fsync dir;
// then ONE ledger transaction inserts the iteration's rows and marks it committed (the commit
// point). Opening for writing discards anything above the last committed iteration (rows,
// shards, temporaries). Read-only opens work while another process writes.
// Errors: InputError (exit 2) for a directory that is not a run store, a newer schema, or a
// damaged ledger; StoreError for I/O failures while running; CorruptionError for a bad shard.
#pragma once

#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/core/error.h"
#include "trails/store/records.h"

namespace trails::store {

// 2: walkers.weight, the element_state table (iterations.state is gone) and the shards'
// /trails/final_state group. Schema 1 runs are refused with a clear error (no migration).
inline constexpr int kSchemaVersion = 2;

struct RunMeta {
  int schema_version = kSchemaVersion;
  std::string trails_version;
  std::string config_digest;        // digest of the result-relevant configuration
  nlohmann::json config;            // result-relevant canonical configuration
  nlohmann::json effective_config;  // every key with its value
  // What the engine reported about its system (engines::EngineSystem::to_json() plus "engine":
  // its name): reports read units, dimension and molecularity from it, never md_engine.
  nlohmann::json engine_system;
  std::string created_at;  // ISO 8601 UTC
  // The shards' position grid step (output.position_precision; 0: exact). It is the store's
  // position format: a run made before quantised shards has no such entry and reads as exact,
  // and its resume keeps it so (docs/file-formats.md, "Quantised positions").
  double position_precision = 0.0;
};

// One committed iteration without its bulk arrays (cheap: for status and output.log).
struct IterationSummary {
  std::int64_t iteration = 0;
  std::int64_t successful_walkers = 0;
  std::int64_t failed_walkers = 0;
  std::int64_t frames = 0;
  std::int64_t cumulative_frames = 0;
  std::int64_t occupied_bins = 0;
  std::int64_t total_bins = 0;
  std::vector<int> n_bins;
  double runner_s = 0.0;
  double analysis_s = 0.0;
  std::vector<std::int64_t> spawn_pool_indices;
  std::string committed_at;
  nlohmann::json state;
  // In-loop MSM timing of this iteration, for output.log only (not stored; NaN = not known):
  // wall time of the build joined in this iteration (it ran during this iteration's MD when
  // overlapped) and how long the join blocked.
  double msm_build_s = std::numeric_limits<double>::quiet_NaN();
  double msm_wait_s = std::numeric_limits<double>::quiet_NaN();
  // Weighted-ensemble recycling of this iteration, for output.log (the ledger's recycling table;
  // summaries() leaves them empty).
  std::optional<double> recycled_flux;
  std::int64_t recycled_walkers = 0;
};

// One in-loop MSM build (docs/file-formats.md, table msm_builds).
struct MsmBuildRow {
  std::int64_t iteration = 0;  // the build covers every frame up to this iteration
  double build_s = 0.0;        // wall time of the build (not part of the model)
  nlohmann::json model;        // lag, active set, π, T, timescales, ITS, VAMP-2, convergence
};

// Weighted-ensemble recycling of one iteration (docs/file-formats.md, table recycling).
struct RecyclingRow {
  std::int64_t iteration = 0;
  double flux = 0.0;         // weight that reached the recycling target in the iteration
  std::int64_t walkers = 0;  // walkers recycled
};

// A result-relevant key changed by a --resume (docs/reliability.md, "What may change on
// resume"; table config_changes in docs/file-formats.md).
struct ConfigChange {
  std::int64_t iteration = 0;  // the first iteration run with the new value
  std::string key;             // dotted path in RunMeta::config, e.g. "engine.dt"
  nlohmann::json before;       // null when the key was absent
  nlohmann::json after;
  std::string changed_at;  // ISO 8601 UTC; filled by the store
};

namespace detail {
class ShardBuilder;
}

// The shard of the iteration in flight (docs/file-formats.md, "When a shard is written"): the
// driver appends each ok walker's frames, in walker order, as the results arrive, so the
// shard's positions are written while other walkers still run and large ones never wait in
// memory for the commit. RunStore::commit(record, shard) adds the rest. Destroyed without a
// commit (an iteration that failed), it removes its temporary file.
class PendingShard {
 public:
  PendingShard(PendingShard&&) noexcept;
  PendingShard& operator=(PendingShard&&) noexcept;
  ~PendingShard();

  // Whole frames of the full system (n_atoms × spatial_dim each), in row order.
  void append(std::span<const double> positions);
  std::int64_t iteration() const { return iteration_; }
  std::int64_t frames() const;

 private:
  friend class RunStore;
  PendingShard(std::int64_t iteration, std::unique_ptr<detail::ShardBuilder> builder);
  std::int64_t iteration_ = 0;
  std::unique_ptr<detail::ShardBuilder> builder_;
};

class RunStore {
 public:
  enum class Mode { ReadOnly, ReadWrite };

  // Creates a new store in `dir` (created if missing; must hold no store yet).
  // dir_lock_fd: an fd of `dir` on which the caller already holds the exclusive flock (taken
  // before anything was created); the store shares it instead of locking again. -1: lock here.
  static RunStore create(const std::filesystem::path& dir, const RunMeta& meta,
                         int dir_lock_fd = -1);
  // Opens an existing store. ReadWrite sweeps uncommitted leftovers.
  static RunStore open(const std::filesystem::path& dir, Mode mode, int dir_lock_fd = -1);
  // True when dir holds a Trails ledger file.
  static bool exists(const std::filesystem::path& dir);
  static std::filesystem::path ledger_path(const std::filesystem::path& dir);

  RunStore(RunStore&&) noexcept;
  RunStore& operator=(RunStore&&) noexcept;
  ~RunStore();

  const RunMeta& meta() const;
  std::optional<std::int64_t> last_committed() const;

  // Durably commits one iteration (protocol above). Iterations must be committed in order.
  // Fail-stop: after a commit fails with an I/O error, further commits throw StoreError until
  // the store is reopened (which resolves what did and did not commit).
  void commit(const IterationRecord& record);
  // The shard of the next iteration to commit, to fill while its walkers run.
  PendingShard begin_shard(std::int64_t iteration, const ShardLayout& layout);
  // commit() with the positions already in `shard` (record.positions: empty, or the same
  // frames).
  void commit(const IterationRecord& record, PendingShard&& shard);

  // Durably records one MSM build in its own transaction (replacing an earlier record of the
  // same build: a resumed run recomputes the same bits).
  void commit_msm_build(const MsmBuildRow& row);
  std::vector<MsmBuildRow> msm_builds() const;
  // The recycled flux of every committed iteration of a recycling run, ascending (written
  // with the iteration's commit; empty for other runs).
  std::vector<RecyclingRow> recycling() const;
  // Durably records keys a --resume changed, in one transaction with the new configuration:
  // meta's config, config_digest, effective_config and engine_system become `updated`'s, so
  // the next resume compares with what this one ran.
  void record_config_changes(const std::vector<ConfigChange>& changes, const RunMeta& updated);
  // Every recorded change, in the order made (empty for a run never changed on resume).
  std::vector<ConfigChange> config_changes() const;

  std::vector<IterationSummary> summaries() const;
  // Full records of committed iterations (walkers with weights, cvs, spawns, state with its
  // element versions); positions and final states left empty.
  std::vector<IterationRecord> load_iterations() const;
  // Positions of the given frames, read from their shards (checksum-verified), in order: the
  // recorded atoms of the shard's record policy, as float64 (see record_policy()).
  std::vector<std::vector<double>> load_positions(std::span<const core::FrameKey> keys) const;
  // Positions and box (empty when the shard stores none) of the given frames, in order.
  struct StoredFrame {
    std::vector<double> positions;
    std::vector<double> box;
  };
  std::vector<StoredFrame> load_frames(std::span<const core::FrameKey> keys) const;
  std::filesystem::path shard_path(std::int64_t iteration) const;
  // The walkers of one committed iteration: seed, status, timings and where each ran
  // (platform, device, visible devices, host); no CVs. Empty for an unknown iteration.
  std::vector<WalkerRecord> walker_placements(std::int64_t iteration) const;

  // Each ok walker's final state (positions, velocities when the engine has them, box) of a
  // committed iteration, full float64, in walker order (empty when the record had none).
  std::vector<FinalState> load_final_states(std::int64_t iteration) const;
  // The full start configurations of the spawns an iteration chose (walker = slot), stored
  // when its record policy reduces the positions; empty otherwise.
  std::vector<FinalState> load_spawn_starts(std::int64_t iteration) const;
  // The record policy iteration's shard positions were written under.
  RecordPolicy record_policy(std::int64_t iteration) const;
  // One element's state blob of a committed iteration; nullopt when the iteration stored no
  // state under `key`. InputError (exit 2) when the stored version is not expected_version.
  std::optional<nlohmann::json> load_element_state(std::int64_t iteration, const std::string& key,
                                                   int expected_version) const;
  // The whole driver state of an iteration (element key -> value), every element checked
  // against `versions` (element key -> version this reader understands); an element that is
  // not in `versions` is an InputError too.
  nlohmann::json load_state(std::int64_t iteration,
                            const std::map<std::string, int>& versions) const;

 private:
  struct Impl;
  // Whether commit_pending() still has to check the record's consistency: Done when commit(record)
  // has checked it already, with the stricter rule that its positions are all there.
  enum class RecordCheck { Done, Pending };
  void commit_pending(const IterationRecord& record, PendingShard&& shard, RecordCheck check);
  core::InputError version_mismatch(std::int64_t iteration, const std::string& key, int stored,
                                    int expected) const;
  explicit RunStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace trails::store
