// The ledger's msm_builds payload (docs/file-formats.md, "msm_builds"): written by
// MsmBuild::to_json(), read by every report (status, plot, analyze). Writer and readers share
// one list of keys and a version number, so a renamed or missing key is an error that names it,
// never a value that silently reads as NaN or a default.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace trails::msm {

inline constexpr int kMsmBuildRecordVersion = 1;

// Every key of a record (besides "record_version"), in the order the writer emits them.
std::span<const std::string_view> msm_build_record_keys();

// Throws core::CorruptionError naming `where` (e.g. "RUN/ledger.sqlite, MSM build 12") when the
// record is not an object, has another version, or lacks a key.
void check_msm_build_record(const nlohmann::json& record, const std::string& where);

}  // namespace trails::msm
