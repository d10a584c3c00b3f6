// RunStore's commit protocol: the record checked, its shard written to a temporary, fsynced and
// renamed into place, then one ledger transaction (the commit point); MSM builds in their own
// transaction. A failed commit leaves the store fail-stop until it is reopened.
#include "trails/store/run_store.h"

#include <algorithm>
#include <functional>

#include "trails/core/crash_point.h"
#include "trails/core/error.h"
#include "trails/core/fs.h"
#include "trails/store/ledger.h"
#include "trails/store/run_store_impl.h"
#include "trails/store/shard.h"

namespace trails::store {

namespace fs = std::filesystem;
using detail::kShardDir;
using detail::shard_name;

namespace {

// Checks the record's internal consistency; a violation is a driver bug, not bad input.
// `pending`: the positions are in a pending shard (the record's may be empty).
void check_record(const IterationRecord& r, bool pending) {
  TRAILS_CHECK(r.cv_dim >= 0 && r.n_atoms >= 0 && r.spatial_dim >= 0, "negative dimension");
  TRAILS_CHECK(r.stride >= 1, "stride must be at least 1");
  std::int64_t frames = 0;
  std::int64_t previous = -1;
  for (const auto& w : r.walkers) {
    TRAILS_CHECK(w.walker > previous, "walkers must be in strictly increasing walker order");
    previous = w.walker;
    TRAILS_CHECK(w.n_frames >= 0 && (w.ok || w.n_frames == 0),
                 "walker " + std::to_string(w.walker) + ": a failed walker has no frames");
    if (w.ok) frames += w.n_frames;
  }
  TRAILS_CHECK(
      static_cast<std::int64_t>(r.cvs.size()) == frames * r.cv_dim && r.n_frames() == frames,
      "cvs hold " + std::to_string(r.cvs.size()) + " values, the ok walkers have " +
          std::to_string(frames) + " frames x cv_dim " + std::to_string(r.cv_dim));
  // Positions: in the record, or appended to its pending shard (the record's then empty or
  // the same frames).
  const auto positions = static_cast<std::int64_t>(r.positions.size());
  TRAILS_CHECK(positions == frames * r.n_atoms * r.spatial_dim || (pending && positions == 0),
               "positions hold " + std::to_string(r.positions.size()) + " values, expected " +
                   std::to_string(frames) + " frames x n_atoms x spatial_dim");
  // Final states: none (a record without them), or one per ok walker in walker order.
  if (!r.final_states.empty()) {
    std::size_t k = 0;
    for (const auto& w : r.walkers) {
      if (!w.ok) continue;
      TRAILS_CHECK(k < r.final_states.size() && r.final_states[k].walker == w.walker,
                   "final states are one per ok walker, in walker order");
      ++k;
    }
    TRAILS_CHECK(k == r.final_states.size(), "final states of walkers that did not succeed");
  }
  TRAILS_CHECK(r.spawn_starts.empty() || r.spawn_starts.size() == r.spawns.size(),
               "spawn starts are one per spawn slot, or none");
  const auto& atoms = r.record_policy.atoms;
  TRAILS_CHECK(
      std::adjacent_find(atoms.begin(), atoms.end(), std::greater_equal<>()) == atoms.end() &&
          (atoms.empty() || (atoms.front() >= 0 && atoms.back() < r.n_atoms)),
      "record selection atoms must be strictly increasing indices below n_atoms");
  previous = -1;
  for (const auto& s : r.spawns) {
    TRAILS_CHECK(s.slot > previous, "spawns must be in strictly increasing slot order");
    previous = s.slot;
  }
}

}  // namespace

void RunStore::commit_msm_build(const MsmBuildRow& row) {
  TRAILS_CHECK(impl_->mode == Mode::ReadWrite, "commit on a read-only run store");
  impl_->ledger->put_msm_build(row.iteration, row.build_s, row.model.dump());
}

void RunStore::record_config_changes(const std::vector<ConfigChange>& changes,
                                     const RunMeta& updated) {
  TRAILS_CHECK(impl_->mode == Mode::ReadWrite, "record_config_changes on a read-only run store");
  TRAILS_CHECK(!changes.empty(), "record_config_changes without a change");
  impl_->ledger->put_config_changes(changes, updated);
}

PendingShard::PendingShard(std::int64_t iteration, std::unique_ptr<detail::ShardBuilder> builder)
    : iteration_(iteration), builder_(std::move(builder)) {}
PendingShard::PendingShard(PendingShard&&) noexcept = default;
PendingShard& PendingShard::operator=(PendingShard&&) noexcept = default;
PendingShard::~PendingShard() = default;

void PendingShard::append(std::span<const double> positions) {
  TRAILS_CHECK(builder_ != nullptr, "append to a committed shard");
  builder_->append(positions);
}

std::int64_t PendingShard::frames() const { return builder_ ? builder_->frames() : 0; }

std::int64_t RunStore::Impl::next_commit() const {
  TRAILS_CHECK(mode == Mode::ReadWrite, "commit on a read-only run store");
  if (failed) {
    throw core::StoreError("an earlier commit to " + dir.string() +
                           " failed; reopen the run store to resume from its last commit");
  }
  const auto last = ledger->last_committed();
  return last ? *last + 1 : 0;
}

PendingShard RunStore::begin_shard(std::int64_t iteration, const ShardLayout& layout) {
  TRAILS_CHECK(iteration == impl_->next_commit(), "a shard of the next iteration only");
  const fs::path tmp_path = shard_path(iteration).string() + ".tmp";
  return {iteration, std::make_unique<detail::ShardBuilder>(tmp_path, layout)};
}

void RunStore::commit(const IterationRecord& record) {
  // The stricter check (the positions are the record's own) covers the pending shard's.
  check_record(record, false);
  auto shard = begin_shard(record.iteration, detail::shard_layout_of(record));
  shard.append(record.positions);
  commit_pending(record, std::move(shard), RecordCheck::Done);
}

void RunStore::commit(const IterationRecord& record, PendingShard&& pending) {
  commit_pending(record, std::move(pending), RecordCheck::Pending);
}

void RunStore::commit_pending(const IterationRecord& record, PendingShard&& pending,
                              RecordCheck check) {
  Impl& s = *impl_;
  const std::int64_t expected = s.next_commit();
  TRAILS_CHECK(record.iteration == expected, "iterations are committed in order: got " +
                                                 std::to_string(record.iteration) + ", expected " +
                                                 std::to_string(expected));
  TRAILS_CHECK(pending.builder_ != nullptr && pending.iteration() == record.iteration,
               "the pending shard is this iteration's");
  if (check == RecordCheck::Pending) check_record(record, true);
  TRAILS_CHECK(pending.frames() == record.n_frames() || record.n_atoms * record.spatial_dim == 0,
               "the pending shard holds " + std::to_string(pending.frames()) +
                   " frames, the record " + std::to_string(record.n_frames()));

  const std::int64_t n = record.iteration;
  const fs::path final_path = shard_path(n);
  const fs::path tmp_path = final_path.string() + ".tmp";
  const auto builder = std::move(pending.builder_);
  try {
    const auto written = builder->finish(record);
    core::crash_point("shard-written", n);
    core::rename_durable(tmp_path, final_path);
    core::crash_point("shard-renamed", n);
    const detail::ShardInfo shard{std::string(kShardDir) + "/" + shard_name(n), written.bytes,
                                  written.checksum};
    s.ledger->insert(record, shard, [n] { core::crash_point("ledger-commit", n); });
  } catch (...) {
    // Fail-stop: the outcome of a failed COMMIT can be unknown until the ledger is reopened,
    // so the renamed shard stays (a reopen sweeps it if the iteration did not commit).
    s.failed = true;
    std::error_code ec;
    fs::remove(tmp_path, ec);
    throw;
  }
}

}  // namespace trails::store
