// The ledger's element_state table: the driver's state after each iteration, one versioned
// blob (UTF-8 JSON) per element key (docs/file-formats.md). The store does not interpret the
// blobs; readers state the version they understand (RunStore::load_state).
#include <string>

#include "trails/core/error.h"
#include "trails/store/ledger.h"

namespace trails::store::detail {
namespace {

std::span<const std::byte> text_bytes(const std::string& s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

nlohmann::json parse_blob(const Db& db, std::span<const std::byte> blob, std::int64_t iteration,
                          const std::string& key) {
  try {
    return nlohmann::json::parse(reinterpret_cast<const char*>(blob.data()),
                                 reinterpret_cast<const char*>(blob.data()) + blob.size());
  } catch (const nlohmann::json::exception& e) {
    throw core::CorruptionError(db.path() + ": element_state '" + key + "' of iteration " +
                                std::to_string(iteration) + " is not valid JSON: " + e.what());
  }
}

}  // namespace

void Ledger::insert_elements(const IterationRecord& r) {
  if (r.state.is_null()) return;
  TRAILS_CHECK(r.state.is_object(), "the driver state is a JSON object of element keys");
  for (const auto& [key, value] : r.state.items()) {
    const auto v = r.state_versions.find(key);
    const int version = v == r.state_versions.end() ? 1 : v->second;
    const std::string text = value.dump();  // the same text the state column held before
    insert_element_.bind(1, r.iteration)
        .bind_text(2, key)
        .bind(3, std::int64_t{version})
        .bind_blob(4, text_bytes(text))
        .run();
  }
}

void Ledger::for_each_element(
    const std::function<void(std::int64_t, std::string, int, nlohmann::json)>& fn) const {
  Stmt q(db_, "SELECT iteration, key, version, blob FROM element_state ORDER BY iteration, key");
  while (q.step()) {
    const std::int64_t iteration = q.int64(0);
    std::string key = q.text(1);
    auto value = parse_blob(db_, q.blob(3), iteration, key);
    fn(iteration, std::move(key), static_cast<int>(q.int64(2)), std::move(value));
  }
}

std::optional<Ledger::ElementBlob> Ledger::element_state(std::int64_t iteration,
                                                         const std::string& key) const {
  verify_rows(iteration);
  Stmt q(db_, "SELECT version, blob FROM element_state WHERE iteration = ?1 AND key = ?2");
  q.bind(1, iteration).bind_text(2, key);
  if (!q.step()) return std::nullopt;
  return ElementBlob{static_cast<int>(q.int64(0)), parse_blob(db_, q.blob(1), iteration, key)};
}

std::map<std::string, Ledger::ElementBlob> Ledger::element_states(std::int64_t iteration) const {
  verify_rows(iteration);
  Stmt q(db_, "SELECT key, version, blob FROM element_state WHERE iteration = ?1 ORDER BY key");
  q.bind(1, iteration);
  std::map<std::string, ElementBlob> out;
  while (q.step()) {
    std::string key = q.text(0);
    auto value = parse_blob(db_, q.blob(2), iteration, key);
    out.emplace(std::move(key), ElementBlob{static_cast<int>(q.int64(1)), std::move(value)});
  }
  return out;
}

}  // namespace trails::store::detail
