// The ledger's element_state table: the driver's state after each iteration, one versioned
// blob (UTF-8 JSON) per element key (docs/file-formats.md). The store does not interpret the
// blobs; readers state the version they understand (RunStore::load_state). A top-level member
// of an element that is a JSON binary value (a network's weights) is stored as raw bytes in
// the element_attachments table, in the same transaction, and its JSON holds a reference with
// the bytes' size and CRC-32: no base64, no JSON escaping of a megabyte (docs/file-formats.md,
// "element_attachments").
#include <string>

#include "trails/core/error.h"
#include "trails/store/ledger.h"
#include "trails/store/shard_io.h"

namespace trails::store::detail {
namespace {

// Created by the first commit that stores an attachment (ledgers without it have none).
constexpr const char* kAttachmentTable =
    "CREATE TABLE IF NOT EXISTS element_attachments (iteration INTEGER NOT NULL REFERENCES "
    "iterations (iteration), key TEXT NOT NULL, member TEXT NOT NULL, bytes BLOB NOT NULL, "
    "PRIMARY KEY (iteration, key, member))";
constexpr const char* kAttachmentKey = "trails_attachment";

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

bool has_binary_member(const nlohmann::json& value) {
  if (!value.is_object()) return false;
  for (const auto& [member, v] : value.items()) {
    if (v.is_binary()) return true;
  }
  return false;
}

bool is_attachment_reference(const nlohmann::json& v) {
  return v.is_object() && v.size() == 1 && v.contains(kAttachmentKey);
}

// Replaces the attachment references among value's top-level members by the stored bytes;
// CorruptionError naming the ledger when an attachment is missing or its size or CRC-32 differs.
void attach(const Db& db, std::int64_t iteration, const std::string& key, nlohmann::json& value) {
  if (!value.is_object()) return;
  for (auto it = value.begin(); it != value.end(); ++it) {
    nlohmann::json& m = it.value();
    const std::string& member = it.key();
    if (!is_attachment_reference(m)) continue;
    const auto where = "element_attachments '" + key + "." + member + "' of iteration " +
                       std::to_string(iteration);
    Stmt has(db, "SELECT count(*) FROM sqlite_master WHERE name = 'element_attachments'");
    if (!has.step() || has.int64(0) == 0) {
      throw core::CorruptionError(db.path() + ": " + where + " is missing (no such table)");
    }
    Stmt q(db,
           "SELECT bytes FROM element_attachments WHERE iteration = ?1 AND key = ?2 AND "
           "member = ?3");
    q.bind(1, iteration).bind_text(2, key).bind_text(3, member);
    if (!q.step()) throw core::CorruptionError(db.path() + ": " + where + " is missing");
    const auto bytes = q.blob(0);
    const auto& expect = m.at(kAttachmentKey);
    const std::string crc = shard_checksum(bytes);
    if (expect.value("bytes", std::uint64_t{0}) != bytes.size() ||
        expect.value("crc32", std::string()) != crc) {
      throw core::CorruptionError(
          db.path() + ": " + where + " is damaged: " + std::to_string(bytes.size()) +
          " bytes, CRC-32 " + crc + "; element_state records " + expect.dump());
    }
    const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data());
    m = nlohmann::json::binary(std::vector<std::uint8_t>(p, p + bytes.size()));
  }
}

}  // namespace

void Ledger::insert_elements(const IterationRecord& r) {
  if (r.state.is_null()) return;
  TRAILS_CHECK(r.state.is_object(), "the driver state is a JSON object of element keys");
  for (const auto& [key, value] : r.state.items()) {
    const auto v = r.state_versions.find(key);
    const int version = v == r.state_versions.end() ? 1 : v->second;
    std::string text;
    if (!has_binary_member(value)) {
      text = value.dump();  // the same text the state column held before
    } else {
      db_.exec(kAttachmentTable);
      Stmt put(db_,
               "INSERT INTO element_attachments (iteration, key, member, bytes) "
               "VALUES (?1, ?2, ?3, ?4)");
      nlohmann::json light = nlohmann::json::object();
      for (const auto& [member, m] : value.items()) {
        if (!m.is_binary()) {
          light[member] = m;
          continue;
        }
        const auto bytes = std::as_bytes(std::span(m.get_binary()));
        light[member] = {
            {kAttachmentKey, {{"bytes", bytes.size()}, {"crc32", shard_checksum(bytes)}}}};
        put.bind(1, r.iteration).bind_text(2, key).bind_text(3, member).bind_blob(4, bytes).run();
      }
      text = light.dump();
    }
    insert_element_.bind(1, r.iteration)
        .bind_text(2, key)
        .bind(3, std::int64_t{version})
        .bind_blob(4, text_bytes(text))
        .run();
  }
}

// History reads leave the attachment references: they need no network weights.
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
  ElementBlob out{static_cast<int>(q.int64(0)), parse_blob(db_, q.blob(1), iteration, key)};
  attach(db_, iteration, key, out.value);
  return out;
}

std::map<std::string, Ledger::ElementBlob> Ledger::element_states(std::int64_t iteration) const {
  verify_rows(iteration);
  Stmt q(db_, "SELECT key, version, blob FROM element_state WHERE iteration = ?1 ORDER BY key");
  q.bind(1, iteration);
  std::map<std::string, ElementBlob> out;
  while (q.step()) {
    std::string key = q.text(0);
    auto value = parse_blob(db_, q.blob(2), iteration, key);
    attach(db_, iteration, key, value);
    out.emplace(std::move(key), ElementBlob{static_cast<int>(q.int64(1)), std::move(value)});
  }
  return out;
}

}  // namespace trails::store::detail
