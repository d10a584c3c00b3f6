// The values that selection keywords take (internal to the structure module, for
// selection.cpp): fnmatch-style globs for the string fields, integers and ranges for the
// numeric ones (docs/structures.md), and the edit distance behind "did you mean" suggestions.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

#include "trails/core/edit_distance.h"

namespace trails::structure::detail {

// Levenshtein distance between `a` and `b`, case-sensitive (selection keywords are).
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  return core::edit_distance(a, b, core::LetterCase::Sensitive);
}

// fnmatch-style case-sensitive glob: * ? [abc] [a-z] [!abc].
bool glob_match(std::string_view pattern, std::string_view text);

struct Range {
  int lo, hi;
};

// One value of a numeric keyword: integer [ws* (':' | '-' | ' to ') ws* integer]; nullopt when
// `s` is not of that form.
std::optional<Range> parse_range(std::string_view s);

}  // namespace trails::structure::detail
