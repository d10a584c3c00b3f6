#include "trails/config/reader.h"

#include <algorithm>
#include <set>
#include <system_error>

#include "trails/config/convert.h"
#include "trails/config/scalar.h"

namespace trails::config::detail {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string dotted(std::string_view block, std::string_view name) {
  return block.empty() ? std::string(name) : std::string(block) + "." + std::string(name);
}

std::string where(std::string_view block) {
  return block.empty() ? "at the top level" : "in the " + std::string(block) + " block";
}

// The message for a key the table does not know, with the most useful suggestion we can make.
std::string unknown_key_text(std::string_view block, const std::string& name) {
  if (!block.empty() && is_block(name)) {
    return "`" + name + "` is a top-level block, not a key of " + std::string(block) +
           "; check its indentation";
  }
  const auto elsewhere = blocks_with_key(name, block);
  if (!elsewhere.empty()) {
    return "unknown key " + where(block) + "; `" + name + "` belongs " + where(elsewhere[0]) +
           " (did you mean " + dotted(elsewhere[0], name) + "?)";
  }
  // Closest key at this level (blocks count as keys at the top level), then anywhere.
  std::string best;
  std::size_t best_d = static_cast<std::size_t>(-1);
  const auto consider = [&](std::string_view b, std::string_view n) {
    const std::size_t d = edit_distance(name, n);
    if (d < best_d && is_close(name, n)) best_d = d, best = dotted(b, n);
  };
  for (const auto& key : all_keys()) {
    if (key.block == block) consider(key.block, key.name);
  }
  if (block.empty()) {
    for (auto b : block_names()) consider("", b);
  }
  const bool here = !best.empty();
  if (!here) {
    for (const auto& key : all_keys()) consider(key.block, key.name);
  }
  std::string text = "unknown key " + where(block);
  if (best.empty()) return text + "; see docs/configuration.md for the valid keys";
  text += "; did you mean " + best + "?";
  if (best_d == 0) text += " (keys are case-sensitive)";
  return text;
}

class Reader {
 public:
  Reader(const fs::path& config_dir, Problems& problems)
      : config_dir_(config_dir), problems_(problems) {}

  RawConfig run(const YAML::Node& root) {
    for (const auto& key : all_keys()) {
      Entry e;
      e.spec = &key;
      e.value = key.type == ValueType::OutPath
                    ? json(resolve_path(key.default_value.get<std::string>(), config_dir_).string())
                    : key.default_value;
      raw_.entries.emplace(key.dotted(), std::move(e));
    }
    if (!root.IsMap()) {
      problems_.add(position_of(root.Mark()), "",
                    "a config file must be a mapping of keys (key: value), got " + describe(root));
      return std::move(raw_);
    }
    for_each_key(root, "",
                 [&](const std::string& name, const YAML::Node& key, const YAML::Node& value) {
                   if (is_block(name)) {
                     read_block(name, key, value);
                   } else if (const KeySpec* spec = find_key("", name)) {
                     read_key(*spec, key, value);
                   } else {
                     problems_.add(position_of(key.Mark()), name, unknown_key_text("", name));
                   }
                 });
    for (auto block : block_names()) {
      if (is_required_block(block) && !raw_.blocks.count(std::string(block))) {
        problems_.add(Position{}, std::string(block),
                      "missing required block; add the `" + std::string(block) +
                          ":` block (see docs/configuration.md)");
      }
    }
    for (auto& [path, e] : raw_.entries) check_effect(e);
    return std::move(raw_);
  }

 private:
  // Calls fn(name, key node, value node) for each key of `map`, rejecting non-scalar and
  // duplicate keys (PyYAML would silently keep the last one).
  template <class Fn>
  void for_each_key(const YAML::Node& map, std::string_view block, Fn fn) {
    std::map<std::string, Position> seen;
    for (const auto& kv : map) {
      const YAML::Node& key = kv.first;
      const Position at = position_of(key.Mark());
      if (!key.IsScalar()) {
        problems_.add(at, std::string(block.empty() ? "(document)" : block),
                      "keys must be plain names, got " + describe(key));
        continue;
      }
      const std::string name = key.Scalar();
      if (name == "<<") {
        problems_.add(at, dotted(block, name),
                      "YAML merge keys are not supported; write the keys out");
        continue;
      }
      auto [it, fresh] = seen.emplace(name, at);
      if (!fresh) {
        problems_.add(at, dotted(block, name),
                      "duplicate key (first given on line " + std::to_string(it->second.line + 1) +
                          "); keep only one");
        continue;
      }
      fn(name, key, kv.second);
    }
  }

  void read_block(const std::string& block, const YAML::Node& key, const YAML::Node& value) {
    const Position at = position_of(key.Mark());
    raw_.blocks[block] = at;
    if (!value.IsMap()) {
      std::string text =
          value.IsNull()
              ? "the block is empty; indent its keys below it or remove the line"
              : "must be a mapping of keys (the " + block + " block), got " + describe(value);
      const auto elsewhere = blocks_with_key(block, "");
      if (!elsewhere.empty()) {
        text += " (the key " + dotted(elsewhere[0], block) + " is a different setting)";
      }
      problems_.add(at, block, text);
      return;
    }
    for (auto& [path, e] : raw_.entries) {
      if (e.spec->block == block) e.key_at = e.value_at = at;  // absent keys point at the block
    }
    for_each_key(value, block,
                 [&](const std::string& name, const YAML::Node& k, const YAML::Node& v) {
                   if (const KeySpec* spec = find_key(block, name)) {
                     read_key(*spec, k, v);
                   } else {
                     problems_.add(position_of(k.Mark()), dotted(block, name),
                                   unknown_key_text(block, name));
                   }
                 });
  }

  void read_key(const KeySpec& spec, const YAML::Node& key, const YAML::Node& value) {
    const std::string path = spec.dotted();
    Entry& e = raw_.entries.at(path);
    e.present = true;
    e.key_at = position_of(key.Mark());
    e.value_at = value.IsNull() ? e.key_at : position_of(value.Mark());
    if (value.IsSequence()) {
      for (const auto& element : value) {
        e.element_at.push_back(element.IsNull() ? e.value_at : position_of(element.Mark()));
      }
    }
    json converted;
    if (!convert_value(value, spec, ValueSite{path, e.value_at, config_dir_}, problems_,
                       converted)) {
      e.valid = false;
      return;
    }
    e.value = converted;
    check_not_built(spec, e);
    check_exists(spec, e);
  }

  static std::string not_built_tail(const KeySpec& spec) {
    return " is not supported by this build of Trails yet; remove the key or set it to its "
           "default (" +
           yaml_repr(spec.default_value) + ")";
  }

  void check_not_built(const KeySpec& spec, Entry& e) {
    const std::string path = spec.dotted();
    const std::string tail = not_built_tail(spec);
    // Keys read only with a chosen feature wait for the whole file (check_effect).
    if (spec.support == Support::NotBuilt && spec.used_with_key.empty() &&
        e.value != spec.default_value) {
      problems_.add(e.value_at, path, std::string(spec.feature) + tail);
      e.valid = false;
    } else if (!spec.built_choices.empty() && e.value.is_string()) {
      const std::string v = e.value.get<std::string>();
      if (std::find(spec.built_choices.begin(), spec.built_choices.end(), v) ==
          spec.built_choices.end()) {
        std::string feature(spec.feature);
        if (auto pos = feature.find("{}"); pos != std::string::npos) feature.replace(pos, 2, v);
        problems_.add(e.value_at, path, feature + tail);
        e.valid = false;
      }
    }
  }

  // After the whole file is read: a key Trails-MD never reads, or reads only with a feature that
  // this configuration does not choose, is accepted with a note (it has no effect there either:
  // docs/trails-md-compatibility.md#compat-ignored-keys). A not-built feature's key is refused
  // only when its feature is chosen and that choice itself is built (otherwise the choice's own
  // message says it, once).
  void check_effect(Entry& e) {
    const KeySpec& spec = *e.spec;
    if (!e.present || !e.valid || e.value == spec.default_value) return;
    const std::string path = spec.dotted();
    if (spec.support == Support::NoEffect) {
      raw_.notes.push_back({e.value_at, path,
                            "has no effect (Trails-MD reads it but never uses it); accepted for "
                            "compatibility"});
      return;
    }
    if (spec.used_with_key.empty()) return;
    const Entry& chooser = raw_.entries.at(std::string(spec.used_with_key));
    if (!chooser.valid) return;  // its own problem is reported; what it chose is unknown
    const std::string chosen =
        chooser.value.is_string() ? chooser.value.get<std::string>() : yaml_repr(chooser.value);
    const bool used =
        std::find(spec.used_with.begin(), spec.used_with.end(), chosen) != spec.used_with.end();
    if (used) {
      if (spec.support != Support::NotBuilt) return;  // a built feature's key, in use
      // The choice is refused (built_choices, or check_engine for md_engine) unless this build
      // has it: then only this key is missing, and it is refused here.
      const auto& built = chooser.spec->built_choices;
      if (chooser.valid && std::find(built.begin(), built.end(), chosen) != built.end()) {
        problems_.add(e.value_at, path, std::string(spec.feature) + not_built_tail(spec));
        e.valid = false;
      }
      return;
    }
    std::string values;
    for (std::size_t i = 0; i < spec.used_with.size(); ++i) {
      values += (i == 0                           ? ""
                 : i + 1 == spec.used_with.size() ? " or "
                                                  : ", ") +
                std::string(spec.used_with[i]);
    }
    raw_.notes.push_back({e.value_at, path,
                          "has no effect with " + std::string(spec.used_with_key) + ": " + chosen +
                              " (Trails-MD reads it only with " + values +
                              "); accepted and ignored"});
  }

  // Input paths are checked even for keys this build cannot use yet, so the user learns of a
  // wrong path now rather than when the feature lands.
  void check_exists(const KeySpec& spec, Entry& e) {
    if ((spec.type != ValueType::FilePath && spec.type != ValueType::DirPath) ||
        !e.value.is_string()) {
      return;
    }
    const fs::path p = e.value.get<std::string>();
    std::error_code ec;
    const fs::file_status st = fs::status(p, ec);
    const bool want_dir = spec.type == ValueType::DirPath;
    std::string problem;
    if (!fs::exists(st)) {
      problem = std::string(want_dir ? "directory" : "file") + " not found: " + p.string();
    } else if (want_dir && !fs::is_directory(st)) {
      problem = "not a directory: " + p.string();
    } else if (!want_dir && fs::is_directory(st)) {
      problem = "is a directory, expected a file: " + p.string();
    }
    if (problem.empty()) return;
    problems_.add(e.value_at, spec.dotted(),
                  problem + " (relative paths are resolved against the config file's directory " +
                      config_dir_.string() + ")");
    e.valid = false;
  }

  fs::path config_dir_;
  Problems& problems_;
  RawConfig raw_;
};

}  // namespace

std::vector<std::string> format_notes(const RawConfig& raw, const std::string& display_file) {
  std::vector<const Note*> order;
  for (const auto& n : raw.notes) order.push_back(&n);
  std::stable_sort(order.begin(), order.end(), [](const Note* a, const Note* b) {
    return a->at.line != b->at.line ? a->at.line < b->at.line : a->at.column < b->at.column;
  });
  std::vector<std::string> out;
  for (const Note* n : order) out.push_back(located(display_file, n->at, n->key_path, n->text));
  return out;
}

RawConfig read_document(const YAML::Node& root, const fs::path& config_dir, Problems& problems) {
  return Reader(config_dir, problems).run(root);
}

}  // namespace trails::config::detail
