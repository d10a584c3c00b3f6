// First pass over a parsed config document: walks every mapping against the key table, reports
// unknown keys (with a suggestion), duplicate keys, malformed blocks, type/range/choice errors,
// not-built features set away from their defaults and missing input files, notes the keys that
// are accepted without effect, and returns every key of the table with its converted value (or
// its default). Cross-field rules come later
// (cross_checks.h). Internal to the config module.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include "trails/config/problems.h"
#include "trails/config/schema.h"

namespace trails::config::detail {

struct Entry {
  const KeySpec* spec = nullptr;
  nlohmann::json value;              // converted value; the default when absent or invalid
  bool present = false;              // written in the file
  bool valid = true;                 // false: a problem was reported for it (cross-checks skip it)
  Position key_at;                   // position of the key (of its block when absent)
  Position value_at;                 // position of the value (of the key when absent or empty)
  std::vector<Position> element_at;  // list values: position of each element
};

// A key that is accepted but has no effect (Support::NoEffect, or a not-built feature's key that
// Trails-MD would not read in this configuration): said once, never an error.
struct Note {
  Position at;
  std::string key_path;
  std::string text;
};

struct RawConfig {
  std::map<std::string, Entry> entries;    // every key of the table, by dotted path
  std::map<std::string, Position> blocks;  // blocks written in the file -> their key position
  std::vector<Note> notes;                 // in file order

  const Entry& at(const std::string& dotted) const { return entries.at(dotted); }
  bool present(const std::string& dotted) const { return at(dotted).present; }
  // Present-or-default value, usable by cross-checks only when `usable()` holds.
  const nlohmann::json& value(const std::string& dotted) const { return at(dotted).value; }
  bool usable(const std::string& dotted) const { return at(dotted).valid; }
};

// The notes as "FILE:LINE:COL: key.path: text" lines (the format of a problem).
std::vector<std::string> format_notes(const RawConfig& raw, const std::string& display_file);

// `root` is the document's root node (not null). Relative paths resolve against `config_dir`.
RawConfig read_document(const YAML::Node& root, const std::filesystem::path& config_dir,
                        Problems& problems);

}  // namespace trails::config::detail
