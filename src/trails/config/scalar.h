// How a YAML scalar is read. yaml-cpp leaves plain scalars untyped, so the config module resolves
// them itself: quoted scalars are always strings; plain ones follow the YAML core schema plus
// PyYAML's yes/no/on/off booleans (Trails-MD reads its files with PyYAML, so `npt: yes` must mean
// true here too). Internal to the config module.
#pragma once

#include <cstdint>
#include <string>

#include <yaml-cpp/yaml.h>

#include "trails/core/edit_distance.h"

namespace trails::config::detail {

enum class ScalarKind { Null, Bool, Int, Float, String };

struct Scalar {
  ScalarKind kind = ScalarKind::Null;
  bool boolean = false;
  std::int64_t integer = 0;
  double number = 0.0;        // Float, and Int converted
  bool out_of_range = false;  // an integer literal that does not fit in int64_t...
  std::uint64_t big = 0;      // ...but fits here when big_unsigned (seeds up to 2^64-1)
  bool big_unsigned = false;
  // An Int written with a leading zero (`020`): YAML 1.1 (PyYAML, so Trails-MD) reads it as
  // octal 16, YAML 1.2 as decimal 20; readers reject it rather than pick one.
  bool leading_zero = false;
  std::string text;  // the scalar as written
};

// `node` must be a scalar or null node.
Scalar resolve_scalar(const YAML::Node& node);

// "the string \"ten\"", "the integer 30", "the number 1.5", "the boolean true", "null",
// "a list", "a mapping": for "must be X, got Y" messages.
std::string describe(const YAML::Node& node);

// Levenshtein edit distance (case-insensitive), for "did you mean" suggestions.
// Case-insensitive: a key or choice typed in another case is still "close".
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  return core::edit_distance(a, b, core::LetterCase::Insensitive);
}
// Whether `candidate` is close enough to `typed` to be offered as a suggestion.
bool is_close(std::string_view typed, std::string_view candidate);

}  // namespace trails::config::detail
