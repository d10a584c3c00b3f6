// Ledger schema of the run store (private to src/trails/store/): the DDL, the identity checks
// done before anything is read or written, and the meta table. See docs/file-formats.md.
// validate_ledger() only reads; every failure is an InputError (exit 2) that says what to do.
#pragma once

#include <cstdint>
#include <filesystem>

#include "trails/store/run_store.h"
#include "trails/store/sqlite.h"

namespace trails::store::detail {

inline constexpr std::int32_t kApplicationId = 0x54524C53;  // "TRLS" in the SQLite header
inline constexpr const char* kApplicationMagic = "trails-run-store";

// Writes a complete, closed ledger file at `file` (rollback-journal mode, one transaction):
// header ids, tables, and meta. The caller renames it into place, so a run directory either
// has a whole ledger or none.
void create_ledger_file(const std::filesystem::path& file, const RunMeta& meta);

// Checks, in order, that `db` (just opened, nothing read yet) is an SQLite file with the Trails
// header ids and magic, not from a newer schema, and passes PRAGMA quick_check.
void validate_ledger(const Db& db);

// meta.position_precision's text: the grid step as JSON, or "exact" (0).
std::string position_precision_text(double position_precision);

// Reads the meta table of a validated ledger.
RunMeta read_meta(const Db& db);

// "2024-05-01T12:00:00.123Z"
std::string utc_now_iso8601();

}  // namespace trails::store::detail
