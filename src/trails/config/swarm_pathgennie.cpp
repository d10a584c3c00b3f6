// PathGennie's own input.yaml blocks, read as PathGennie writes them (docs/swarm.md, "From a
// PathGennie input.yaml"): `projection: {module, function, periodic, **kwargs}`,
// `convergence: {module, function, **kwargs}` beside the declarative tests, and the `openmm:`
// backend block, whose keys become the campaign table's engine/system keys (so the OpenMM system
// is prepared by the one preparation route, share/trails/prepare_openmm.py).
#include <cmath>
#include <numbers>
#include <set>
#include <string>
#include <vector>

#include "trails/config/convert.h"
#include "trails/config/scalar.h"
#include "trails/config/swarm_reader.h"

namespace trails::config::detail {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

KeySpec spec_of(std::string_view block, std::string_view name, ValueType type) {
  KeySpec s;
  s.block = block;
  s.name = name;
  s.type = type;
  return s;
}

// PathGennie names a module as a file (`system.py`, `cvs/project.py`) or as a Python module
// beside the input (`project`, `cvs.project`): both resolve to a .py file.
std::string module_file(const std::string& written) {
  if (written.size() > 3 && written.ends_with(".py")) return written;
  std::string path = written;
  for (char& c : path) {
    if (c == '.') c = '/';
  }
  return path + ".py";
}

// The openmm: keys and the campaign keys they are read as (docs/swarm.md has the table).
struct OpenMMKey {
  const char* name;
  const char* block;  // in the campaign-shaped document
  const char* key;
};
constexpr OpenMMKey kOpenMMKeys[] = {
    {"module", "system", "system_file"},  {"structure", "system", "conf_file"},
    {"topology", "system", "top_file"},   {"platform", "engine", "platform_name"},
    {"precision", "engine", "precision"}, {"forcefield", "system", "forcefield"},
};

}  // namespace

std::optional<PythonFunction> SwarmReader::read_function(const std::string& block,
                                                         const YAML::Node& k, const YAML::Node& v) {
  const Position at = position_of(k.Mark());
  if (!v.IsMap()) {
    problems_.add(
        at, block,
        "must be a mapping {module: FILE.py, function: NAME, ...keyword arguments}, got " +
            describe(v));
    return std::nullopt;
  }
  PythonFunction f;
  f.block = block;
  f.location = located(file_, at, block + ".function", "");
  f.location.resize(f.location.size() - 2);  // without the trailing ": "
  YAML::Node kwargs(YAML::NodeType::Map);
  bool ok = true;
  std::set<std::string> seen;
  for (const auto& kv : v) {
    const std::string name = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
    const Position key_at = position_of(kv.first.Mark());
    const std::string dotted = block + "." + name;
    if (!seen.insert(name).second) {
      problems_.add(key_at, dotted, "duplicate key; keep only one");
      ok = false;
    } else if (name == "module" || name == "function") {
      json value;
      const ValueSite site{dotted, position_of(kv.second.Mark()), dir_};
      if (!convert_value(kv.second, spec_of(block, name, ValueType::String), site, problems_,
                         value)) {
        ok = false;
      } else if (name == "function") {
        f.function = value.get<std::string>();
      } else {
        f.module = resolve_path(module_file(value.get<std::string>()), dir_);
        if (!fs::is_regular_file(f.module)) {
          problems_.add(site.at, dotted,
                        "no Python module " + f.module.string() +
                            "; give the module's file (relative to the config file) or its "
                            "name beside it");
          ok = false;
        }
      }
    } else if (block == "projection" && name == "periodic") {
      read_periods(kv.second, dotted);
    } else if (const KeySpec* spec = block == "convergence" ? key_spec(block, name) : nullptr) {
      read_key(*spec, kv.first, kv.second);  // a declarative test beside the function
    } else {
      kwargs[name] = kv.second;  // the function's keyword arguments
    }
  }
  for (const char* required : {"module", "function"}) {
    if (seen.count(required) == 0) {
      problems_.add(at, block + "." + required,
                    std::string("missing; PathGennie's ") + block +
                        " block names the Python function: {module: FILE.py, function: NAME}");
      ok = false;
    }
  }
  json converted;
  const ValueSite site{block, at, dir_};
  if (kwargs.size() > 0 &&
      convert_value(kwargs, spec_of(block, "", ValueType::Mapping), site, problems_, converted)) {
    f.kwargs = converted;
  }
  if (!ok) return std::nullopt;
  return f;
}

void SwarmReader::read_periods(const YAML::Node& v, const std::string& dotted) {
  const Position at = position_of(v.Mark());
  if (!v.IsSequence()) {
    problems_.add(at, dotted,
                  "must be a list with one entry per projection component: true (an angle in "
                  "radians, period 2π), false, or the period; got " +
                      describe(v));
    return;
  }
  for (const auto& e : v) {
    const Scalar s = resolve_scalar(e);
    if (s.kind == ScalarKind::Bool) {
      periods_.push_back(s.boolean ? 2.0 * std::numbers::pi : 0.0);
    } else if (s.kind == ScalarKind::Int || s.kind == ScalarKind::Float) {
      if (!(s.number >= 0.0) || !std::isfinite(s.number)) {
        problems_.add(position_of(e.Mark()), dotted, "a period must be a finite number >= 0");
      }
      periods_.push_back(s.number);
    } else {
      problems_.add(position_of(e.Mark()), dotted,
                    "each entry is true, false or a period (a number), got " + describe(e));
    }
  }
}

void SwarmReader::read_openmm(const YAML::Node& k, const YAML::Node& v, YAML::Node& md) {
  const Position at = position_of(k.Mark());
  if (!v.IsMap()) {
    problems_.add(at, "openmm",
                  "must be a mapping of keys (the OpenMM backend block), got " + describe(v));
    return;
  }
  if (!md["engine"]) md["engine"] = YAML::Node(YAML::NodeType::Map);
  if (!md["system"]) md["system"] = YAML::Node(YAML::NodeType::Map);
  YAML::Node engine = md["engine"];
  YAML::Node system = md["system"];
  if (engine["md_engine"] && engine["md_engine"].IsScalar() &&
      engine["md_engine"].Scalar() != "openmm") {
    problems_.add(at, "openmm",
                  "the openmm: block runs the OpenMM engine but engine.md_engine is " +
                      engine["md_engine"].Scalar() + "; remove one of them");
  }
  engine["md_engine"] = "openmm";
  for (const auto& key : kOpenMMKeys) {
    problems_.rename(std::string(key.block) + "." + key.key, std::string("openmm.") + key.name);
  }
  for (const auto& kv : v) {
    const std::string name = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
    const OpenMMKey* key = nullptr;
    for (const auto& candidate : kOpenMMKeys) {
      if (name == candidate.name) key = &candidate;
    }
    const Position key_at = position_of(kv.first.Mark());
    if (key == nullptr) {
      std::string text = "unknown key in the openmm block";
      for (const auto& candidate : kOpenMMKeys) {
        if (is_close(name, candidate.name)) text += std::string("; did you mean ") + candidate.name;
      }
      problems_.add(key_at, "openmm." + name,
                    text + " (docs/swarm.md, \"From a PathGennie input.yaml\", lists the keys)");
      continue;
    }
    YAML::Node target = std::string(key->block) == "engine" ? engine : system;
    const std::string campaign_key = std::string(key->block) + "." + key->key;
    if (target[key->key]) {
      problems_.add(key_at, "openmm." + name,
                    "also given as " + campaign_key + "; write it once, in one of the blocks");
      continue;
    }
    if (name == "module" && kv.second.IsScalar() && !kv.second.Scalar().ends_with(".py")) {
      // A module name (PathGennie's `system`): its file, checked here, where the line is known.
      const fs::path file = resolve_path(module_file(kv.second.Scalar()), dir_);
      if (!fs::is_regular_file(file)) {
        problems_.add(position_of(kv.second.Mark()), "openmm.module",
                      "no Python module " + file.string() +
                          "; give PathGennie's system.py (relative to the config file)");
        continue;
      }
      target[key->key] = file.string();
    } else {
      target[key->key] = kv.second;
    }
  }
}

}  // namespace trails::config::detail
