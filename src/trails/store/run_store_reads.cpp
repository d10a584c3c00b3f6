// RunStore's reads: summaries and records from the ledger, frames and final states from the
// checksum-verified shards, and the driver's element state checked against the versions the
// reader understands.
#include "trails/store/run_store.h"

#include <algorithm>
#include <map>

#include "trails/core/error.h"
#include "trails/store/ledger.h"
#include "trails/store/run_store_impl.h"
#include "trails/store/shard.h"
#include "trails/store/shard_io.h"

namespace trails::store {

namespace fs = std::filesystem;

std::unique_ptr<detail::ShardReader> RunStore::Impl::open_shard(
    const detail::ShardLocation& loc) const {
  const fs::path path = dir / loc.shard.file;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    throw core::CorruptionError(path.string() + " (shard of committed iteration " +
                                std::to_string(loc.iteration) + ") is missing");
  }
  const auto actual = detail::checksum_file(path);
  if (actual.checksum != loc.shard.checksum || actual.bytes != loc.shard.bytes) {
    throw core::CorruptionError(path.string() + " is damaged: the ledger records checksum " +
                                loc.shard.checksum + " (" + std::to_string(loc.shard.bytes) +
                                " bytes), the file has " + actual.checksum + " (" +
                                std::to_string(actual.bytes) + " bytes); restore it from a backup");
  }
  auto reader = std::make_unique<detail::ShardReader>(path);
  if (reader->system_atoms() != loc.n_atoms || reader->spatial_dim() != loc.spatial_dim) {
    throw core::CorruptionError(
        path.string() + ": positions are of " + std::to_string(reader->system_atoms()) + " x " +
        std::to_string(reader->spatial_dim()) + ", the ledger records " +
        std::to_string(loc.n_atoms) + " x " + std::to_string(loc.spatial_dim));
  }
  return reader;
}

detail::ShardLocation RunStore::Impl::committed_shard(std::int64_t iteration) const {
  const auto loc = ledger->shard_of(iteration);
  if (!loc) {
    const auto last = ledger->last_committed();
    throw core::InputError("iteration " + std::to_string(iteration) + " is not committed in " +
                           dir.string() +
                           " (last committed: " + (last ? std::to_string(*last) : "none") + ")");
  }
  return *loc;
}

std::vector<MsmBuildRow> RunStore::msm_builds() const { return impl_->ledger->msm_builds(); }
std::vector<RecyclingRow> RunStore::recycling() const { return impl_->ledger->recycling(); }

std::vector<ConfigChange> RunStore::config_changes() const {
  return impl_->ledger->config_changes();
}

std::vector<IterationSummary> RunStore::summaries() const { return impl_->ledger->summaries(); }

std::vector<IterationRecord> RunStore::load_iterations() const {
  return impl_->ledger->load_iterations();
}

std::vector<std::vector<double>> RunStore::load_positions(
    std::span<const core::FrameKey> keys) const {
  auto frames = load_frames(keys);
  std::vector<std::vector<double>> out;
  out.reserve(frames.size());
  for (auto& f : frames) out.push_back(std::move(f.positions));
  return out;
}

std::vector<RunStore::StoredFrame> RunStore::load_frames(
    std::span<const core::FrameKey> keys) const {
  const Impl& s = *impl_;
  std::vector<StoredFrame> out(keys.size());
  if (keys.empty()) return out;
  std::map<std::int64_t, std::vector<std::size_t>> by_iteration;
  for (std::size_t i = 0; i < keys.size(); ++i) by_iteration[keys[i].iteration].push_back(i);

  auto snapshot = s.ledger->read_snapshot();
  for (const auto& [iteration, wanted] : by_iteration) {
    auto unknown = [&](std::size_t i, const std::string& why) {
      return core::InputError("frame " + keys[i].to_string() + " is not in the run store " +
                              s.dir.string() + ": " + why);
    };
    const auto loc = s.ledger->shard_of(iteration);
    if (!loc) {
      const auto last = s.ledger->last_committed();
      throw unknown(wanted.front(), "iteration " + std::to_string(iteration) +
                                        " is not committed (last committed: " +
                                        (last ? std::to_string(*last) : "none") + ")");
    }
    // Rows are the ok walkers' frames in walker order; first_row records where each starts.
    const auto walkers = s.ledger->walker_rows(iteration);
    std::vector<std::pair<std::int64_t, std::size_t>> rows;  // (shard row, output index)
    for (std::size_t i : wanted) {
      const auto& key = keys[i];
      auto w =
          std::lower_bound(walkers.begin(), walkers.end(), key.walker,
                           [](const detail::WalkerRow& r, std::int64_t v) { return r.walker < v; });
      if (w == walkers.end() || w->walker != key.walker) throw unknown(i, "no such walker");
      if (!w->ok) throw unknown(i, "the walker failed and has no frames");
      if (key.frame < 0 || key.frame >= w->n_frames) {
        throw unknown(i, "the walker has " + std::to_string(w->n_frames) + " frames");
      }
      rows.emplace_back(w->first_row + key.frame, i);
    }

    const auto reader = s.open_shard(*loc);
    std::sort(rows.begin(), rows.end());  // forward through the chunks
    const auto frame_size = static_cast<std::size_t>(reader->n_atoms() * loc->spatial_dim);
    for (const auto& [row, i] : rows) {
      out[i].positions.resize(frame_size);
      reader->read_frame(row, out[i].positions);
      if (reader->has_boxes()) {
        out[i].box.resize(9);
        reader->read_box(row, out[i].box);
      }
    }
  }
  snapshot.commit();
  return out;
}

std::vector<FinalState> RunStore::load_final_states(std::int64_t iteration) const {
  return impl_->open_shard(impl_->committed_shard(iteration))->read_final_states();
}

std::vector<FinalState> RunStore::load_spawn_starts(std::int64_t iteration) const {
  return impl_->open_shard(impl_->committed_shard(iteration))->read_spawn_starts();
}

RecordPolicy RunStore::record_policy(std::int64_t iteration) const {
  return impl_->open_shard(impl_->committed_shard(iteration))->record_policy();
}

core::InputError RunStore::version_mismatch(std::int64_t iteration, const std::string& key,
                                            int stored, int expected) const {
  return core::InputError(impl_->dir.string() + ": the state of element '" + key +
                          "' in iteration " + std::to_string(iteration) + " has version " +
                          std::to_string(stored) + ", this Trails reads version " +
                          std::to_string(expected) +
                          "; resume the run with the Trails that made it (meta.trails_version " +
                          meta().trails_version + "), or start a new campaign in another outdir");
}

std::optional<nlohmann::json> RunStore::load_element_state(std::int64_t iteration,
                                                           const std::string& key,
                                                           int expected_version) const {
  impl_->committed_shard(iteration);  // a clear error for an iteration that is not committed
  auto blob = impl_->ledger->element_state(iteration, key);
  if (!blob) return std::nullopt;
  if (blob->version != expected_version) {
    throw version_mismatch(iteration, key, blob->version, expected_version);
  }
  return std::move(blob->value);
}

nlohmann::json RunStore::load_state(std::int64_t iteration,
                                    const std::map<std::string, int>& versions) const {
  impl_->committed_shard(iteration);  // a clear error for an iteration that is not committed
  nlohmann::json state;
  for (auto& [key, blob] : impl_->ledger->element_states(iteration)) {
    const auto expected = versions.find(key);
    if (expected == versions.end()) {
      throw core::InputError(impl_->dir.string() + ": iteration " + std::to_string(iteration) +
                             " holds state of element '" + key +
                             "', which this Trails does not know; resume the run with the "
                             "Trails that made it (meta.trails_version " +
                             meta().trails_version + ")");
    }
    if (blob.version != expected->second)
      throw version_mismatch(iteration, key, blob.version, expected->second);
    state[key] = std::move(blob.value);
  }
  return state;
}

std::vector<WalkerRecord> RunStore::walker_placements(std::int64_t iteration) const {
  return impl_->ledger->walker_placements(iteration);
}

}  // namespace trails::store
