#include "trails/config/convert.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <string>

#include "trails/config/scalar.h"

namespace trails::config::detail {
namespace {

using json = nlohmann::json;

Position at_of(const YAML::Node& node, Position fallback) {
  // Empty (null) values carry the mark of whatever follows them; the key's position is clearer.
  return node.IsNull() ? fallback : position_of(node.Mark());
}

std::string range_text(const KeySpec& spec) {
  const auto num = [](const Bound& b) { return format_number(b.value); };
  if (spec.lo && spec.hi) {
    return "in " + std::string(spec.lo->open ? "(" : "[") + num(*spec.lo) + ", " + num(*spec.hi) +
           (spec.hi->open ? ")" : "]");
  }
  if (spec.lo) return std::string(spec.lo->open ? "> " : ">= ") + num(*spec.lo);
  if (spec.hi) return std::string(spec.hi->open ? "< " : "<= ") + num(*spec.hi);
  return {};
}

bool in_range(double v, const KeySpec& spec) {
  if (spec.lo && (spec.lo->open ? !(v > spec.lo->value) : !(v >= spec.lo->value))) return false;
  if (spec.hi && (spec.hi->open ? !(v < spec.hi->value) : !(v <= spec.hi->value))) return false;
  return true;
}

std::string kind_name(const KeySpec& spec, bool integer) {
  const std::string base = integer ? "an integer" : "a number";
  const std::string range = range_text(spec);
  const bool scalar = spec.type == ValueType::Int || spec.type == ValueType::Number;
  return (range.empty() ? base : base + " " + range) + (spec.nullable && scalar ? " or null" : "");
}

// `020` is 16 to Trails-MD's YAML 1.1 reader and 20 to YAML 1.2: neither reading is safe.
bool reject_leading_zero(const Scalar& s, const std::string& path, Position at,
                         Problems& problems) {
  if (!s.leading_zero) return false;
  const std::string sign = s.text[0] == '-' ? "-" : "";
  const std::size_t first = s.text.find_first_not_of("+-0");
  const std::string digits = first == std::string::npos ? "" : s.text.substr(first);
  problems.add(at, path,
               "the integer " + s.text +
                   " has a leading zero, which is ambiguous: Trails-MD's YAML 1.1 reader takes it "
                   "as octal, YAML 1.2 as decimal; write it without the leading zero (" +
                   sign + (digits.empty() ? "0" : digits) + ")");
  return true;
}

// Reads one integer element. `ranged`: apply the spec's bounds to it.
std::optional<json> read_int(const YAML::Node& node, const KeySpec& spec, const std::string& path,
                             Position at, Problems& problems) {
  const std::string want = kind_name(spec, true);
  if (!node.IsScalar() && !node.IsNull()) {
    problems.add(at, path, "must be " + want + ", got " + describe(node));
    return std::nullopt;
  }
  const Scalar s = resolve_scalar(node);
  if (s.kind != ScalarKind::Int) {
    std::string hint;
    if (s.kind == ScalarKind::Float && std::isfinite(s.number) &&
        std::floor(s.number) == s.number) {
      hint = " (write it without a decimal point)";
    } else if (s.kind == ScalarKind::String &&
               resolve_scalar(YAML::Node(s.text)).kind == ScalarKind::Int) {
      hint = " (remove the quotes)";
    }
    problems.add(at, path, "must be " + want + ", got " + describe(node) + hint);
    return std::nullopt;
  }
  if (reject_leading_zero(s, path, at, problems)) return std::nullopt;
  if (s.out_of_range && spec.wide && s.big_unsigned) return json(s.big);  // beyond int64
  constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
  if (s.out_of_range || (!spec.wide && (s.integer > kIntMax || s.integer < -kIntMax))) {
    problems.add(at, path, "integer " + s.text + " is too large");
    return std::nullopt;
  }
  if (!in_range(static_cast<double>(s.integer), spec)) {
    problems.add(at, path, "must be " + want + ", got " + s.text);
    return std::nullopt;
  }
  return json(s.integer);
}

std::optional<double> read_number(const YAML::Node& node, const KeySpec& spec,
                                  const std::string& path, Position at, Problems& problems,
                                  bool ranged = true) {
  const std::string want = ranged ? kind_name(spec, false) : "a number";
  if (!node.IsScalar() && !node.IsNull()) {
    problems.add(at, path, "must be " + want + ", got " + describe(node));
    return std::nullopt;
  }
  const Scalar s = resolve_scalar(node);
  if (s.kind != ScalarKind::Int && s.kind != ScalarKind::Float) {
    std::string hint;
    if (s.kind == ScalarKind::String) {
      const ScalarKind inner = resolve_scalar(YAML::Node(s.text)).kind;
      if (inner == ScalarKind::Int || inner == ScalarKind::Float) hint = " (remove the quotes)";
    }
    problems.add(at, path, "must be " + want + ", got " + describe(node) + hint);
    return std::nullopt;
  }
  if (s.kind == ScalarKind::Int && reject_leading_zero(s, path, at, problems)) return std::nullopt;
  if (!std::isfinite(s.number)) {
    problems.add(at, path, "must be a finite number, got " + s.text);
    return std::nullopt;
  }
  if (ranged && !in_range(s.number, spec)) {
    problems.add(at, path, "must be " + want + ", got " + s.text);
    return std::nullopt;
  }
  return s.number;
}

std::optional<std::string> read_string(const YAML::Node& node, const std::string& path, Position at,
                                       Problems& problems) {
  if (!node.IsScalar() && !node.IsNull()) {
    problems.add(at, path, "must be a string, got " + describe(node));
    return std::nullopt;
  }
  const Scalar s = resolve_scalar(node);
  if (s.kind != ScalarKind::String) {
    // Plain `on`, `no`, `1.0` are booleans/numbers to YAML; quoting makes them text.
    problems.add(at, path,
                 "must be a string, got " + describe(node) + " (quote it if you mean the text: \"" +
                     s.text + "\")");
    return std::nullopt;
  }
  return s.text;
}

bool check_choice(const std::string& value, const KeySpec& spec, const std::string& path,
                  Position at, Problems& problems) {
  if (spec.choices.empty()) return true;
  if (std::find(spec.choices.begin(), spec.choices.end(), value) != spec.choices.end()) {
    return true;
  }
  std::string list;
  std::string_view best;
  std::size_t best_d = static_cast<std::size_t>(-1);
  for (auto c : spec.choices) {
    list += (list.empty() ? "" : ", ") + std::string(c);
    const std::size_t d = edit_distance(value, c);
    if (d < best_d) best_d = d, best = c;
  }
  std::string text = "must be one of " + list + "; got \"" + value + "\"";
  if (is_close(value, best)) text += " (did you mean " + std::string(best) + "?)";
  problems.add(at, path, text);
  return false;
}

// A list of scalars read by `read_one`; reports every bad element.
template <class ReadOne>
bool convert_list(const YAML::Node& node, const KeySpec& spec, const ValueSite& site,
                  const std::string& what, Problems& problems, json& out, ReadOne read_one) {
  if (!node.IsSequence()) {
    std::string hint;
    if (node.IsScalar() && resolve_scalar(node).kind != ScalarKind::String) {
      hint = " (write it as a list: [" + node.Scalar() + "])";
    }
    problems.add(site.at, site.path,
                 "must be a list of " + what + ", got " + describe(node) + hint);
    return false;
  }
  if (spec.non_empty && node.size() == 0) {
    problems.add(site.at, site.path, "must not be an empty list");
    return false;
  }
  out = json::array();
  bool ok = true;
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node element = node[i];
    const std::string path = site.path + "[" + std::to_string(i) + "]";
    json value;
    if (read_one(element, path, at_of(element, site.at), value)) {
      out.push_back(std::move(value));
    } else {
      ok = false;
    }
  }
  return ok;
}

json generic_json(const YAML::Node& node) {
  if (node.IsMap()) {
    json out = json::object();
    for (const auto& kv : node) out[kv.first.Scalar()] = generic_json(kv.second);
    return out;
  }
  if (node.IsSequence()) {
    json out = json::array();
    for (const auto& e : node) out.push_back(generic_json(e));
    return out;
  }
  const Scalar s = resolve_scalar(node);
  switch (s.kind) {
    case ScalarKind::Null:
      return nullptr;
    case ScalarKind::Bool:
      return s.boolean;
    case ScalarKind::Int:
      return s.integer;
    case ScalarKind::Float:
      return s.number;
    case ScalarKind::String:
      return s.text;
  }
  return nullptr;
}

// engine.command runs in each walker's own directory, so a word naming a file beside the
// configuration (runseg.py, ./runseg.sh) becomes its absolute path (docs/engines.md).
void resolve_command_files(json& words, const std::filesystem::path& config_dir) {
  for (auto& w : words) {
    const std::filesystem::path p = w.get<std::string>();
    std::error_code ec;
    if (p.is_relative() && std::filesystem::is_regular_file(config_dir / p, ec)) {
      w = (config_dir / p).lexically_normal().string();
    }
  }
}

}  // namespace

std::string format_number(double value) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return ec == std::errc() ? std::string(buf, end) : std::to_string(value);
}

std::filesystem::path resolve_path(const std::string& written,
                                   const std::filesystem::path& config_dir) {
  const std::filesystem::path p(written);
  std::filesystem::path out = (p.is_absolute() ? p : config_dir / p).lexically_normal();
  // "dir/." normalises to "dir/"; drop the trailing separator so messages show a plain path.
  if (!out.has_filename() && out.has_relative_path()) out = out.parent_path();
  return out;
}

bool convert_value(const YAML::Node& node, const KeySpec& spec, const ValueSite& site,
                   Problems& problems, json& out) {
  if (node.IsNull() || (node.IsScalar() && resolve_scalar(node).kind == ScalarKind::Null)) {
    if (spec.nullable) {
      out = nullptr;
      return true;
    }
    problems.add(site.at, site.path,
                 "has no value; give one or remove the key to use the default (" +
                     yaml_repr(spec.default_value) + ")");
    return false;
  }
  const auto int_elem = [&](const YAML::Node& n, const std::string& p, Position a, json& v) {
    auto i = read_int(n, spec, p, a, problems);
    if (i) v = *i;
    return i.has_value();
  };
  const auto num_elem = [&](const YAML::Node& n, const std::string& p, Position a, json& v) {
    auto d = read_number(n, spec, p, a, problems);
    if (d) v = *d;
    return d.has_value();
  };
  const auto str_elem = [&](const YAML::Node& n, const std::string& p, Position a, json& v) {
    auto s = read_string(n, p, a, problems);
    if (s) v = *s;
    return s.has_value();
  };
  // One word (auto, exact) or a value read by `elem`.
  const auto word_or = [&](const char* word, const char* kind, const auto& elem) {
    if (node.IsScalar() && resolve_scalar(node).kind == ScalarKind::String) {
      if (node.Scalar() == word) {
        out = word;
        return true;
      }
      problems.add(site.at, site.path,
                   std::string("must be ") + word + " or " + kind + " " + range_text(spec) +
                       ", got " + describe(node));
      return false;
    }
    return elem(node, site.path, site.at, out);
  };
  switch (spec.type) {
    case ValueType::Bool: {
      const bool scalar = node.IsScalar();
      const Scalar s = scalar ? resolve_scalar(node) : Scalar{};
      if (!scalar || s.kind != ScalarKind::Bool) {
        problems.add(site.at, site.path, "must be true or false, got " + describe(node));
        return false;
      }
      out = s.boolean;
      return true;
    }
    case ValueType::Int:
      return int_elem(node, site.path, site.at, out);
    case ValueType::Number:
      return num_elem(node, site.path, site.at, out);
    case ValueType::String: {
      auto s = read_string(node, site.path, site.at, problems);
      if (!s || !check_choice(*s, spec, site.path, site.at, problems)) return false;
      out = *s;
      return true;
    }
    case ValueType::FilePath:
    case ValueType::DirPath:
    case ValueType::OutPath: {
      auto s = read_string(node, site.path, site.at, problems);
      if (!s) return false;
      if (s->empty()) {
        problems.add(site.at, site.path, "must not be an empty path");
        return false;
      }
      out = resolve_path(*s, site.config_dir).string();
      return true;
    }
    case ValueType::IntList:
      return convert_list(node, spec, site, "integers", problems, out, int_elem);
    case ValueType::NumberList:
      return convert_list(node, spec, site, "numbers", problems, out, num_elem);
    case ValueType::StringList:
      return convert_list(node, spec, site, "strings", problems, out, str_elem);
    case ValueType::Points: {
      // One point [x, y] or one point per walker [[x, y], ...]; never a mix.
      const bool nested = node.IsSequence() && node.size() > 0 && node[0].IsSequence();
      const auto point = [&](const YAML::Node& n, const std::string& p, Position a, json& v) {
        if (!n.IsSequence()) {
          problems.add(a, p,
                       "must be a point (a list of numbers), got " + describe(n) +
                           "; write one point [x, y] or one point per walker [[x, y], ...]");
          return false;
        }
        KeySpec inner = spec;
        inner.non_empty = true;
        return convert_list(n, inner, ValueSite{p, a, site.config_dir}, "numbers", problems, v,
                            num_elem);
      };
      return nested ? convert_list(node, spec, site, "points", problems, out, point)
                    : convert_list(node, spec, site, "numbers", problems, out, num_elem);
    }
    case ValueType::Boxes: {
      const auto box = [&](const YAML::Node& n, const std::string& p, Position a, json& v) {
        if (!n.IsSequence() || n.size() != 2) {
          problems.add(a, p, "must be a box [lo, hi], got " + describe(n));
          return false;
        }
        const auto lo = read_number(n[0], spec, p + "[0]", at_of(n[0], a), problems, false);
        const auto hi = read_number(n[1], spec, p + "[1]", at_of(n[1], a), problems, false);
        if (!lo || !hi) return false;
        if (!(*lo < *hi)) {
          problems.add(a, p,
                       "lo must be less than hi, got [" + format_number(*lo) + ", " +
                           format_number(*hi) + "]");
          return false;
        }
        v = json::array({*lo, *hi});
        return true;
      };
      return convert_list(node, spec, site, "boxes [lo, hi]", problems, out, box);
    }
    case ValueType::Mapping:
      if (!node.IsMap()) {
        problems.add(site.at, site.path, "must be a mapping, got " + describe(node));
        return false;
      }
      out = generic_json(node);
      return true;
    case ValueType::CriteriaMapping: {
      if (node.IsMap()) {
        out = generic_json(node);
        return true;
      }
      // Trails-MD's form: [{name: implied_timescales, params: {tol: 0.1}}, ...].
      if (!node.IsSequence()) {
        problems.add(site.at, site.path,
                     "must be a mapping {name: {params}} or a list of {name: ..., params: {...}}, "
                     "got " +
                         describe(node));
        return false;
      }
      bool ok = true;
      out = json::object();
      for (std::size_t i = 0; i < node.size(); ++i) {
        const YAML::Node& e = node[i];
        const std::string at = site.path + "[" + std::to_string(i) + "]";
        if (!e.IsMap() || !e["name"] || !e["name"].IsScalar() ||
            e.size() > (e["params"] ? 2u : 1u) ||
            (e["params"] && !e["params"].IsMap() && !e["params"].IsNull())) {
          problems.add(
              at_of(e, site.at), at,
              "must be {name: CRITERION, params: {...}} (params optional), got " + describe(e));
          ok = false;
          continue;
        }
        const std::string name = e["name"].as<std::string>();
        if (out.contains(name)) {
          problems.add(at_of(e, site.at), at, name + " is listed twice; list each criterion once");
          ok = false;
          continue;
        }
        out[name] = e["params"] && e["params"].IsMap() ? generic_json(e["params"]) : json();
      }
      return ok;
    }
    case ValueType::MappingList: {
      if (!node.IsSequence()) {
        problems.add(site.at, site.path,
                     "must be a list of mappings ({name: ..., kind: ...}), got " + describe(node));
        return false;
      }
      if (spec.non_empty && node.size() == 0) {
        problems.add(site.at, site.path, "must not be empty; remove the key for the default");
        return false;
      }
      bool ok = true;
      for (std::size_t i = 0; i < node.size(); ++i) {
        if (!node[i].IsMap()) {
          problems.add(at_of(node[i], site.at), site.path + "[" + std::to_string(i) + "]",
                       "must be a mapping ({name: ..., kind: ...}), got " + describe(node[i]));
          ok = false;
        }
      }
      if (!ok) return false;
      out = generic_json(node);
      return true;
    }
    case ValueType::Command: {
      // No shell: a string is split on whitespace; arguments with spaces need the list form.
      if (node.IsScalar()) {
        auto s = read_string(node, site.path, site.at, problems);
        if (!s) return false;
        out = json::array();
        std::istringstream words(*s);
        for (std::string w; words >> w;) out.push_back(w);
        if (out.empty()) problems.add(site.at, site.path, "must name a program to run");
        resolve_command_files(out, site.config_dir);
        return !out.empty();
      }
      KeySpec inner = spec;
      inner.non_empty = true;
      if (!convert_list(node, inner, site, "strings", problems, out, str_elem)) return false;
      resolve_command_files(out, site.config_dir);
      return true;
    }
    case ValueType::IntOrAuto:
      return word_or("auto", "an integer", int_elem);
    case ValueType::NumberOrExact:
      return word_or("exact", "a number", num_elem);
  }
  return false;
}

}  // namespace trails::config::detail
