#include "trails/config/swarm_reader.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "trails/config/convert.h"
#include "trails/config/cross_checks.h"
#include "trails/config/scalar.h"

namespace trails::config::detail {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using T = ValueType;

KeySpec key(std::string_view block, std::string_view name, T type, json def) {
  KeySpec s;
  s.block = block;
  s.name = name;
  s.type = type;
  s.default_value = std::move(def);
  return s;
}
KeySpec& null(KeySpec& s) {
  s.nullable = true;
  return s;
}
KeySpec at_least(KeySpec s, double v, bool open = false) {
  s.lo = Bound{v, open};
  return s;
}
KeySpec at_most(KeySpec s, double v) {
  s.hi = Bound{v, false};
  return s;
}
KeySpec choices(KeySpec s, std::vector<std::string_view> c) {
  s.choices = std::move(c);
  return s;
}
KeySpec nullable(KeySpec s) { return null(s); }

// The swarm's own keys (docs/swarm.md, "Keys"): PathGennie v0.2's `pathgennie:` table plus
// Trails' `paths` and the declarative convergence test.
const std::vector<KeySpec>& swarm_keys() {
  static const std::vector<KeySpec> table = [] {
    const json none = nullptr;
    std::vector<KeySpec> t;
    const auto pg = [&](std::string_view name, T type, json def) {
      return key("pathgennie", name, type, std::move(def));
    };
    t.push_back(
        choices(pg("mode", T::String, "escape"), {"escape", "target", "unbind", "fold", "unfold"}));
    // Sizes that allocate per trial or chain are bounded as campaigns bound walkers
    // (docs/reliability.md, "What check verifies before a run"; kMaxWalkers).
    t.push_back(nullable(at_most(at_least(pg("probe_batch", T::Int, none), 1), kMaxWalkers)));
    t.push_back(nullable(at_least(pg("tau1_steps", T::Int, none), 1)));
    t.push_back(nullable(at_least(pg("tau2_steps", T::Int, none), 1)));
    t.push_back(nullable(at_most(at_least(pg("max_trial", T::Int, none), 1), kMaxWalkers)));
    t.push_back(nullable(at_least(pg("max_cycle", T::Int, none), 1)));
    t.push_back(nullable(at_least(pg("sigma", T::Number, none), 0, true)));
    t.push_back(nullable(at_least(pg("temperature", T::Number, none), 0, true)));
    t.push_back(at_least(pg("save_freq", T::Int, 10), 1));
    t.push_back(pg("save_subframes", T::Bool, false));
    t.push_back(nullable(at_least(pg("subframe_stride", T::Int, none), 1)));
    t.push_back(nullable(pg("target_projection", T::NumberList, none)));
    t.push_back(choices(pg("escape_metric", T::String, "distance_from_start"),
                        {"distance_from_start", "cv0"}));
    t.push_back(pg("reject_worse_tau2", T::Bool, false));
    t.push_back(pg("reject_worse_anchor", T::Bool, false));
    KeySpec devices = nullable(at_least(pg("devices", T::IntList, none), 0));
    devices.non_empty = true;
    t.push_back(devices);
    t.push_back(
        nullable(at_most(at_least(pg("workers_per_device", T::Int, none), 1), kMaxWorkers)));
    t.push_back(nullable(at_most(at_least(pg("tau1_workers", T::Int, none), 1), kMaxWorkers)));
    KeySpec seed = at_least(pg("seed", T::Int, 0), 0);
    seed.wide = true;
    t.push_back(seed);
    t.push_back(nullable(choices(pg("profile", T::String, none), {"discovery", "sampling"})));
    t.push_back(at_most(at_least(pg("paths", T::Int, 1), 1), kMaxSwarmPaths));
    t.push_back(nullable(pg("unfold_weights", T::NumberList, none)));
    t.push_back(at_least(pg("unfold_phase_cycles", T::Int, 1000), 0));
    const auto cv = [&](std::string_view name, T type, json def) {
      return key("convergence", name, type, std::move(def));
    };
    t.push_back(nullable(cv("cv_at_most", T::Mapping, none)));
    t.push_back(nullable(cv("cv_at_least", T::Mapping, none)));
    t.push_back(at_least(cv("min_cycles", T::Int, 0), 0));
    t.push_back(nullable(at_least(cv("stall_cycles", T::Int, none), 1)));
    t.push_back(at_least(cv("stall_tolerance", T::Number, 1e-3), 0));
    t.push_back(nullable(at_least(cv("stagnation_window", T::Int, none), 2)));
    t.push_back(at_least(cv("stagnation_tolerance", T::Number, 0.01), 0));
    t.push_back(nullable(at_least(key("convergence", "distance_to_target", T::Number, none), 0)));
    t.push_back(nullable(key("convergence", "metric_at_least", T::Number, none)));
    t.push_back(key("", "workdir", T::OutPath, "swarm_run"));
    return t;
  }();
  return table;
}

// Top-level blocks of PathGennie's input.yaml that Trails reads differently, with what to write
// (`projection:`, `convergence:` and `openmm:` are read as PathGennie writes them).
const std::map<std::string, std::string, std::less<>>& pathgennie_blocks() {
  static const std::map<std::string, std::string, std::less<>> blocks = {
      {"amber",
       "Trails reads the Amber settings from `engine: {md_engine: amber, amber_executable, "
       "amber_input_file, ...}` (docs/engines.md)"},
      {"gromacs",
       "Trails reads the GROMACS settings from `engine: {md_engine: gromacs, "
       "gromacs_executable, ...}` and `system: {conf_file, top_file}` (docs/engines.md)"},
      {"md", "MD settings live in the `engine:` block (docs/configuration.md)"},
      {"output", "the run's outputs are fixed (docs/swarm.md, \"Outputs\"); remove the block"},
  };
  return blocks;
}

const KeySpec* find_swarm_key(std::string_view block, std::string_view name) {
  for (const auto& k : swarm_keys()) {
    if (k.block == block && k.name == name) return &k;
  }
  return nullptr;
}

}  // namespace

SwarmReader::SwarmReader(fs::path config_dir, std::string display_file, Problems& problems)
    : dir_(std::move(config_dir)), file_(std::move(display_file)), problems_(problems) {
  for (const auto& k : swarm_keys()) {
    json def = k.default_value;
    if (k.type == T::OutPath) def = resolve_path(def.get<std::string>(), dir_).string();
    values_[k.dotted()] = Value{def, false, {}};
  }
}

YAML::Node SwarmReader::read(const YAML::Node& root) {
  YAML::Node md(YAML::NodeType::Map);
  std::set<std::string> seen;
  YAML::Node openmm_key, openmm;  // applied once engine/system are read
  bool has_openmm = false;
  for (const auto& kv : root) {
    const Position at = position_of(kv.first.Mark());
    if (!kv.first.IsScalar()) {
      problems_.add(at, "(document)", "keys must be plain names, got " + describe(kv.first));
      continue;
    }
    const std::string name = kv.first.Scalar();
    if (!seen.insert(name).second) {
      problems_.add(at, name, "duplicate key; keep only one");
      continue;
    }
    if (name == "engine" || name == "system" || name == "cvs") {
      md[name] = kv.second;
    } else if (name == "execution") {
      check_execution_block(kv.second);
      md[name] = kv.second;
    } else if (name == "projection" && kv.second.IsMap() && kv.second["model"]) {
      learned_ = read_learned_projection(kv.first, kv.second);
    } else if (name == "projection") {
      projection_ = read_function(name, kv.first, kv.second);
    } else if (name == "convergence" && kv.second.IsMap() && kv.second["module"]) {
      convergence_ = read_function(name, kv.first, kv.second);
    } else if (name == "openmm") {
      openmm_key = kv.first;
      openmm = kv.second;
      has_openmm = true;
    } else if (name == "pathgennie" || name == "convergence") {
      read_block(name, at, kv.second);
    } else if (const KeySpec* spec = find_swarm_key("", name)) {
      read_key(*spec, kv.first, kv.second);
    } else if (auto it = pathgennie_blocks().find(name); it != pathgennie_blocks().end()) {
      problems_.add(at, name, it->second);
    } else {
      problems_.add(at, name, unknown_text("", name));
    }
  }
  if (has_openmm) read_openmm(openmm_key, openmm, md);
  if (!md["system"]) md["system"] = YAML::Node(YAML::NodeType::Map);
  md["spawning"] = YAML::Node(YAML::NodeType::Map);  // required by the campaign table; unused
  return md;
}

void SwarmReader::read_block(const std::string& block, Position at, const YAML::Node& value) {
  if (!value.IsMap()) {
    problems_.add(at, block,
                  "must be a mapping of keys (the " + block + " block), got " + describe(value));
    return;
  }
  std::set<std::string> seen;
  for (const auto& kv : value) {
    const std::string name = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
    const Position key_at = position_of(kv.first.Mark());
    if (!seen.insert(name).second) {
      problems_.add(key_at, block + "." + name, "duplicate key; keep only one");
    } else if (const KeySpec* spec = find_swarm_key(block, name)) {
      read_key(*spec, kv.first, kv.second);
    } else {
      problems_.add(key_at, block + "." + name, unknown_text(block, name));
    }
  }
}

void SwarmReader::read_key(const KeySpec& spec, const YAML::Node& k, const YAML::Node& v) {
  Value& out = values_[spec.dotted()];
  out.present = true;
  out.at = v.IsNull() ? position_of(k.Mark()) : position_of(v.Mark());
  json converted;
  if (convert_value(v, spec, ValueSite{spec.dotted(), out.at, dir_}, problems_, converted)) {
    out.value = converted;
  }
}

void SwarmReader::check_execution_block(const YAML::Node& block) {
  if (!block.IsMap()) return;  // the campaign key table reports what it is
  for (const auto& kv : block) {
    const std::string name = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
    const Position at = position_of(kv.first.Mark());
    if (name == "devices" || name == "workers_per_device") {
      problems_.add(at, "execution." + name,
                    "a swarm's trials run on pathgennie.devices x pathgennie.workers_per_device; "
                    "write pathgennie." +
                        name + " instead");
    } else if (name != "backend" && name != "persistent_workers" && name != "walker_timeout" &&
               name != "heartbeat_timeout" && name != "binding_check") {
      problems_.add(at, "execution." + name,
                    "is not a swarm key: a swarm's execution: block takes backend (local or "
                    "mpi), persistent_workers, walker_timeout, heartbeat_timeout and "
                    "binding_check (docs/execution.md, \"The swarm and the backends\")");
    }
  }
}

const KeySpec* SwarmReader::key_spec(std::string_view block, std::string_view name) {
  return find_swarm_key(block, name);
}

std::string SwarmReader::unknown_text(std::string_view block, const std::string& name) {
  std::string best;
  for (const auto& k : swarm_keys()) {
    if (k.block == block && is_close(name, k.name)) best = k.dotted();
  }
  if (block.empty()) {
    for (std::string_view b : {"pathgennie", "convergence", "engine", "system", "cvs"}) {
      if (is_close(name, b)) best = std::string(b);
    }
  }
  std::string text = "unknown key ";
  text += block.empty() ? "at the top level" : "in the " + std::string(block) + " block";
  if (!best.empty()) return text + "; did you mean " + best + "?";
  return text + "; see docs/swarm.md for the valid keys";
}
std::optional<LearnedProjection> SwarmReader::read_learned_projection(const YAML::Node& k,
                                                                      const YAML::Node& v) {
  LearnedProjection p;
  p.location = located(file_, position_of(k.Mark()), "projection.model", "");
  p.location.resize(p.location.size() - 2);  // without the trailing ": "
  bool ok = true;
  std::set<std::string> seen;
  for (const auto& kv : v) {
    const std::string name = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
    const Position key_at = position_of(kv.first.Mark());
    const std::string dotted = "projection." + name;
    KeySpec spec;
    spec.block = "projection";
    spec.name = name;
    if (!seen.insert(name).second) {
      problems_.add(key_at, dotted, "duplicate key; keep only one");
      ok = false;
      continue;
    }
    if (name == "model") {
      spec.type = ValueType::DirPath;
    } else if (name == "iteration") {
      spec.type = ValueType::Int;
      spec.lo = Bound{0.0, false};
    } else {
      problems_.add(key_at, dotted,
                    "unknown key of a learned-model projection; it takes model (a learned-space "
                    "campaign's run directory) and iteration (optional)");
      ok = false;
      continue;
    }
    json value;
    const ValueSite site{dotted, position_of(kv.second.Mark()), dir_};
    if (!convert_value(kv.second, spec, site, problems_, value)) {
      ok = false;
    } else if (name == "model") {
      p.run_dir = value.get<std::string>();
      if (!fs::is_directory(p.run_dir)) {
        problems_.add(site.at, dotted,
                      "no run directory " + p.run_dir.string() +
                          "; give a learned-space campaign's run directory (relative to the "
                          "config file)");
        ok = false;
      }
    } else {
      p.iteration = value.get<std::int64_t>();
    }
  }
  if (!ok) return std::nullopt;
  return p;
}

}  // namespace trails::config::detail
