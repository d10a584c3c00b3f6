// The one table of every configuration key Trails accepts (Trails-MD's schema plus Trails'
// additions): block, name, value type, Trails-MD default, range or choices, and whether this build
// implements it. Internal to the config module. Loading, suggestions for unknown keys,
// effective_json() and the documentation test all read this table, so they cannot drift apart.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace trails::config {
struct MdSystemConfig;
struct CampaignConfig;
}  // namespace trails::config

namespace trails::config::detail {

enum class ValueType {
  Bool,
  Int,
  Number,  // any finite number; stored as double so 1 and 1.0 are the same value
  String,
  FilePath,  // string, resolved against the config directory, must name an existing file
  DirPath,   // same, must name an existing directory
  OutPath,   // resolved, never checked (outdir is created by the run, not here)
  IntList,
  NumberList,
  StringList,
  Points,       // system.start: one point [x, ...] or one point per walker [[x, ...], ...]
  Boxes,        // spawning.recycle_target: [[lo, hi], ...]
  Mapping,      // msm.convergence_criteria: free-form nested mapping
  MappingList,  // cvs: a list of mappings (each checked by the cvs module when the CvSet is built)
  IntOrAuto,    // adaptive_model.batch_size
  NumberOrExact,  // output.position_precision: a number, or the string exact
  // msm.convergence_criteria: a mapping {name: params}, or Trails-MD's list of {name, params}
  // mappings, which is read as the same mapping
  CriteriaMapping,
  Command,  // engine.command: an argument list, or one string split on whitespace
};

enum class Support {
  Built,        // implemented (possibly only some of its choices: see built_choices)
  NotBuilt,     // accepted only at its Trails-MD default
  BuiltinOnly,  // implemented, but only meaningful with engine.md_engine: builtin
  NoEffect,     // Trails-MD reads it and ignores it: accepted, with a note when set
};

struct Bound {
  double value = 0.0;
  bool open = false;  // true: strict inequality
};

struct KeySpec {
  std::string_view block;  // "" for top level
  std::string_view name;
  ValueType type = ValueType::String;
  nlohmann::json default_value;  // Trails-MD's code default (null where it has none)
  bool nullable = false;
  bool non_empty = false;                       // lists: [] is rejected
  bool wide = false;                            // integers: full 64-bit range (seeds); else int32
  std::optional<Bound> lo, hi;                  // numbers, or each element of a numeric list
  std::vector<std::string_view> choices;        // strings: the values Trails-MD knows
  std::vector<std::string_view> built_choices;  // subset this build implements (empty = all)
  Support support = Support::Built;
  // What is missing, for "not supported" messages; with built_choices, "{}" stands for the value.
  std::string_view feature;
  // Keys that Trails-MD reads only when `used_with_key` has one of the `used_with` values. With
  // any other value the key has no effect in Trails-MD either, so Trails accepts it with a note
  // (a NotBuilt key is then not refused: docs/trails-md-compatibility.md#compat-ignored-keys).
  std::string_view used_with_key;
  std::vector<std::string_view> used_with;
  // A row bound to the member it fills (key_row.h, K::fills): build_md_system (MdSystemConfig,
  // both drivers) and build_config (CampaignConfig, the campaign's own blocks) store the
  // converted value through `fill_md` / `fill`, and the run's JSON views write it back through
  // `read_md` / `read`. Unbound rows are built by hand (build.cpp).
  std::function<void(MdSystemConfig&, const nlohmann::json&)> fill_md;
  std::function<nlohmann::json(const MdSystemConfig&)> read_md;
  std::function<void(CampaignConfig&, const nlohmann::json&)> fill;
  std::function<nlohmann::json(const CampaignConfig&)> read;
  bool effective_only = false;    // no effect on results: only in effective_json
  bool written_when_set = false;  // in the run's JSON only when not at its default
  // A campaign row is in the run's JSON only where this holds (null: always).
  bool (*written_if)(const CampaignConfig&) = nullptr;

  std::string dotted() const;  // "spawning.walker", or "n_bins" at top level
};

// Every key, in documentation order (top level first, then the blocks).
const std::vector<KeySpec>& all_keys();
// The block names (excluding ""), and those a config must contain.
const std::vector<std::string_view>& block_names();
bool is_required_block(std::string_view block);
bool is_block(std::string_view name);

const KeySpec* find_key(std::string_view block, std::string_view name);
// Blocks (possibly "") other than `block` that have a key called `name`.
std::vector<std::string_view> blocks_with_key(std::string_view name, std::string_view except);

// A readable rendering of a JSON value in YAML flow style: "gmx", "[256, 128]", "null", "true".
std::string yaml_repr(const nlohmann::json& value);

}  // namespace trails::config::detail
