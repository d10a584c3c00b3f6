// The ledger's reads: iteration summaries, full iteration records (walkers with their CVs,
// spawns, element state), shard locations and the walkers' rows and placements.
#include "trails/store/ledger.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string>

#include "trails/core/error.h"

namespace trails::store::detail {
namespace {

void append_le_doubles(std::span<const std::byte> blob, std::vector<double>& out) {
  const std::size_t start = out.size();
  out.resize(start + blob.size() / 8);
  std::memcpy(out.data() + start, blob.data(), blob.size());
  if constexpr (std::endian::native == std::endian::big) {
    auto* bytes = reinterpret_cast<unsigned char*>(out.data() + start);
    for (std::size_t i = 0; i < blob.size(); i += 8) {
      std::reverse(bytes + i, bytes + i + 8);
    }
  }
}

[[noreturn]] void corrupt(const Db& db, const std::string& what) {
  throw core::CorruptionError(db.path() + ": " + what);
}

std::vector<int> parse_ints(const Db& db, const std::string& text, std::int64_t iteration) {
  try {
    return nlohmann::json::parse(text).get<std::vector<int>>();
  } catch (const nlohmann::json::exception& e) {
    corrupt(db, "iterations.n_bins of iteration " + std::to_string(iteration) +
                    " is not a JSON list of integers: " + e.what());
  }
}

// The entry of iteration `it` in `out` (a summary or a record, sorted by iteration), searching
// forward from `at`; rows read in iteration order visit `out` once. `what` names the row in the
// CorruptionError when the iteration is not there.
template <class Row>
Row& record_at(const Db& db, std::vector<Row>& out, std::size_t& at, std::int64_t it,
               const char* what = "row of an unknown iteration") {
  while (at < out.size() && out[at].iteration < it) {
    ++at;
  }
  if (at == out.size() || out[at].iteration != it) {
    corrupt(db, what);
  }
  return out[at];
}

// The columns of `iterations` that summaries and records share; each query selects them first,
// in this order: iteration, runner_s, analysis_s, cumulative_frames, occupied_bins, total_bins,
// n_bins.
template <class Row>
void read_iteration_columns(const Db& db, const Stmt& q, Row& r) {
  r.iteration = q.int64(0);
  r.runner_s = q.real(1);
  r.analysis_s = q.real(2);
  r.cumulative_frames = q.int64(3);
  r.occupied_bins = q.int64(4);
  r.total_bins = q.int64(5);
  r.n_bins = parse_ints(db, q.text(6), r.iteration);
}

// The columns of `walkers` that read_walker reads, with the device columns when the table has
// them (a ledger of an older Trails has none).
std::string walker_columns(bool device_columns) {
  return std::string(
             "walker, seed, ok, error, n_frames, startup_s, integrate_s, platform, host, weight") +
         (device_columns ? ", device, visible_devices" : "");
}

// A walker's row from walker_columns(), which the query selects from column `c` on; no CVs and
// no parent.
WalkerRecord read_walker(const Stmt& q, int c, bool device_columns) {
  WalkerRecord w;
  w.walker = q.int64(c);
  w.seed = std::bit_cast<std::uint64_t>(q.int64(c + 1));
  w.ok = q.int64(c + 2) != 0;
  w.error = q.text(c + 3);
  w.n_frames = q.int64(c + 4);
  w.startup_s = q.real(c + 5);
  w.integrate_s = q.real(c + 6);
  w.platform = q.text(c + 7);
  w.host = q.text(c + 8);
  w.weight = q.real(c + 9);
  if (device_columns) {
    w.device = q.text(c + 10);
    w.visible_devices = q.text(c + 11);
  }
  return w;
}

// A shard's location from a query of iteration, shard_file, shard_bytes, shard_checksum,
// n_atoms, spatial_dim.
ShardLocation shard_location(const Stmt& q) {
  return ShardLocation{q.int64(0), {q.text(1), q.int64(2), q.text(3)}, q.int64(4), q.int64(5)};
}

}  // namespace

std::vector<IterationSummary> Ledger::summaries() const {
  auto snapshot = read_snapshot();
  verify_all_rows();
  std::vector<IterationSummary> out;
  Stmt q(db_,
         "SELECT iteration, runner_s, analysis_s, cumulative_frames, occupied_bins, total_bins, "
         "n_bins, successful_walkers, failed_walkers, frames, committed_at "
         "FROM iterations ORDER BY iteration");
  while (q.step()) {
    IterationSummary s;
    read_iteration_columns(db_, q, s);
    s.successful_walkers = q.int64(7);
    s.failed_walkers = q.int64(8);
    s.frames = q.int64(9);
    s.committed_at = q.text(10);
    out.push_back(std::move(s));
  }
  std::size_t element_at = 0;
  for_each_element(
      [&](std::int64_t iteration, std::string key, int /*version*/, nlohmann::json value) {
        record_at(db_, out, element_at, iteration, "element state of an unknown iteration")
            .state[std::move(key)] = std::move(value);
      });
  Stmt spawns(db_, "SELECT iteration, pool_index FROM spawns ORDER BY iteration, slot");
  std::size_t at = 0;
  while (spawns.step()) {
    record_at(db_, out, at, spawns.int64(0), "spawn of an unknown iteration")
        .spawn_pool_indices.push_back(spawns.int64(1));
  }
  snapshot.commit();
  return out;
}

std::vector<IterationRecord> Ledger::load_iterations() const {
  auto snapshot = read_snapshot();
  verify_all_rows();
  std::vector<IterationRecord> out = load_iteration_rows();
  load_walkers(out);
  load_spawns(out);
  std::size_t at = 0;
  for_each_element(
      [&](std::int64_t iteration, const std::string& key, int version, nlohmann::json value) {
        IterationRecord& r = record_at(db_, out, at, iteration);
        r.state_versions[key] = version;
        r.state[key] = std::move(value);
      });
  snapshot.commit();
  return out;
}

std::vector<IterationRecord> Ledger::load_iteration_rows() const {
  std::vector<IterationRecord> out;
  Stmt q(db_,
         "SELECT iteration, runner_s, analysis_s, cumulative_frames, occupied_bins, total_bins, "
         "n_bins, cv_dim, n_atoms, spatial_dim, stride, dt FROM iterations "
         "ORDER BY iteration");
  while (q.step()) {
    IterationRecord r;
    read_iteration_columns(db_, q, r);
    r.cv_dim = static_cast<int>(q.int64(7));
    r.n_atoms = static_cast<int>(q.int64(8));
    r.spatial_dim = static_cast<int>(q.int64(9));
    r.stride = q.int64(10);
    r.dt = q.real(11);
    out.push_back(std::move(r));
  }
  return out;
}

void Ledger::load_walkers(std::vector<IterationRecord>& out) const {
  const std::string select = "SELECT iteration, parent_key, cvs, " +
                             walker_columns(has_device_columns_) +
                             " FROM walkers ORDER BY iteration, walker";
  Stmt walkers(db_, select.c_str());
  std::size_t at = 0;
  while (walkers.step()) {
    IterationRecord& r = record_at(db_, out, at, walkers.int64(0));
    WalkerRecord w = read_walker(walkers, 3, has_device_columns_);
    if (!walkers.is_null(1)) {
      w.parent = core::FrameKey::parse(walkers.text(1));
      if (!w.parent) {
        corrupt(db_, "bad parent_key '" + walkers.text(1) + "'");
      }
    }
    const auto blob = walkers.blob(2);
    if (blob.size() != static_cast<std::size_t>(w.n_frames * r.cv_dim) * 8 ||
        (!w.ok && !blob.empty())) {
      corrupt(db_, "cvs of walker " + std::to_string(w.walker) + " in iteration " +
                       std::to_string(r.iteration) + " has " + std::to_string(blob.size()) +
                       " bytes, expected n_frames x cv_dim x 8");
    }
    if (w.ok) {
      append_le_doubles(blob, r.cvs);
    }
    r.walkers.push_back(std::move(w));
  }
}

void Ledger::load_spawns(std::vector<IterationRecord>& out) const {
  Stmt spawns(db_,
              "SELECT iteration, slot, pool_index, source_iteration, source_walker, source_frame "
              "FROM spawns ORDER BY iteration, slot");
  std::size_t at = 0;
  while (spawns.step()) {
    IterationRecord& r = record_at(db_, out, at, spawns.int64(0));
    r.spawns.push_back(
        SpawnChoice{spawns.int64(1), spawns.int64(2),
                    core::FrameKey{spawns.int64(3), spawns.int64(4), spawns.int64(5)}});
  }
}

std::vector<ShardLocation> Ledger::shards() const {
  std::vector<ShardLocation> out;
  Stmt q(db_,
         "SELECT iteration, shard_file, shard_bytes, shard_checksum, n_atoms, spatial_dim "
         "FROM iterations ORDER BY iteration");
  while (q.step()) {
    out.push_back(shard_location(q));
  }
  return out;
}

std::optional<ShardLocation> Ledger::shard_of(std::int64_t iteration) const {
  std::optional<ShardLocation> out;
  shard_of_.bind(1, iteration);
  if (shard_of_.step()) {
    out = shard_location(shard_of_);
  }
  shard_of_.reset();
  return out;
}

std::vector<WalkerRow> Ledger::walker_rows(std::int64_t iteration) const {
  verify_rows(iteration);  // first_row places the frames in the shard
  std::vector<WalkerRow> out;
  walker_rows_.bind(1, iteration);
  while (walker_rows_.step()) {
    out.push_back({walker_rows_.int64(0), walker_rows_.int64(1) != 0, walker_rows_.int64(2),
                   walker_rows_.is_null(3) ? -1 : walker_rows_.int64(3)});
  }
  walker_rows_.reset();
  return out;
}

std::vector<WalkerRecord> Ledger::walker_placements(std::int64_t iteration) const {
  const std::string select = "SELECT " + walker_columns(has_device_columns_) +
                             " FROM walkers WHERE iteration = ?1 ORDER BY walker";
  Stmt q(db_, select.c_str());
  verify_rows(iteration);
  q.bind(1, iteration);
  std::vector<WalkerRecord> out;
  while (q.step()) {
    out.push_back(read_walker(q, 0, has_device_columns_));
  }
  return out;
}

}  // namespace trails::store::detail
