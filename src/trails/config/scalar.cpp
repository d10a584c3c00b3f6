#include "trails/config/scalar.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <regex>
#include <vector>

namespace trails::config::detail {
namespace {

bool one_of(const std::string& s, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return s == w; });
}

const std::regex& int_pattern() {
  static const std::regex re("[-+]?[0-9]+");
  return re;
}

const std::regex& float_pattern() {
  // YAML 1.2 core schema float (also accepts 1e-4, which PyYAML would leave as a string that
  // Pydantic then converts; both end up as the number).
  static const std::regex re("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  return re;
}

}  // namespace

Scalar resolve_scalar(const YAML::Node& node) {
  Scalar out;
  if (node.IsNull()) return out;
  out.text = node.Scalar();
  const std::string& tag = node.Tag();
  if (tag == "!" || tag == "tag:yaml.org,2002:str") {  // quoted or explicitly a string
    out.kind = ScalarKind::String;
    return out;
  }
  const std::string& s = out.text;
  if (one_of(s, {"", "~", "null", "Null", "NULL"})) return out;
  if (one_of(s, {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"})) {
    out.kind = ScalarKind::Bool;
    out.boolean = true;
    return out;
  }
  if (one_of(s, {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"})) {
    out.kind = ScalarKind::Bool;
    return out;
  }
  if (std::regex_match(s, int_pattern())) {
    out.kind = ScalarKind::Int;
    const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
    const std::size_t digits = (s[0] == '+' || s[0] == '-') ? 1 : 0;
    out.leading_zero = s.size() > digits + 1 && s[digits] == '0';
    auto [ptr, ec] = std::from_chars(begin, s.data() + s.size(), out.integer);
    (void)ptr;
    out.out_of_range = ec == std::errc::result_out_of_range;
    if (out.out_of_range && s[0] != '-') {
      auto r = std::from_chars(begin, s.data() + s.size(), out.big);
      out.big_unsigned = r.ec == std::errc();
    }
    out.number = static_cast<double>(out.integer);
    return out;
  }
  if (std::regex_match(s, float_pattern())) {
    out.kind = ScalarKind::Float;
    const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
    std::from_chars(begin, s.data() + s.size(), out.number);
    return out;
  }
  if (one_of(s, {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"})) {
    out.kind = ScalarKind::Float;
    out.number = std::numeric_limits<double>::infinity();
    return out;
  }
  if (one_of(s, {"-.inf", "-.Inf", "-.INF"})) {
    out.kind = ScalarKind::Float;
    out.number = -std::numeric_limits<double>::infinity();
    return out;
  }
  if (one_of(s, {".nan", ".NaN", ".NAN"})) {
    out.kind = ScalarKind::Float;
    out.number = std::numeric_limits<double>::quiet_NaN();
    return out;
  }
  out.kind = ScalarKind::String;
  return out;
}

std::string describe(const YAML::Node& node) {
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  const Scalar s = resolve_scalar(node);
  switch (s.kind) {
    case ScalarKind::Null:
      return "null (an empty value)";
    case ScalarKind::Bool:
      return "the boolean " + s.text;
    case ScalarKind::Int:
      return "the integer " + s.text;
    case ScalarKind::Float:
      return "the number " + s.text;
    case ScalarKind::String:
      return "the string \"" + s.text + "\"";
  }
  return s.text;
}

bool is_close(std::string_view typed, std::string_view candidate) {
  // Roughly one edit per three characters: catches walkr/walker and temprature/temperature
  // without offering every short key for every short typo.
  const std::size_t n = std::min(typed.size(), candidate.size());
  const std::size_t limit = n <= 3 ? 1 : std::max<std::size_t>(2, n / 3);
  return edit_distance(typed, candidate) <= limit;
}

}  // namespace trails::config::detail
