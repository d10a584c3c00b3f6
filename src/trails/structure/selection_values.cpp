#include "trails/structure/selection_values.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "trails/structure/text_fields.h"

namespace trails::structure::detail {

bool glob_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0, star_p = std::string_view::npos, star_t = 0;
  const auto match_class = [&](std::size_t& pp, char c) {
    // pattern[pp] == '['; on success pp moves past ']'.
    std::size_t q = pp + 1;
    bool negate = false;
    if (q < pattern.size() && (pattern[q] == '!' || pattern[q] == '^')) negate = true, ++q;
    bool found = false;
    const std::size_t start = q;
    while (q < pattern.size() && (pattern[q] != ']' || q == start)) {
      if (q + 2 < pattern.size() && pattern[q + 1] == '-' && pattern[q + 2] != ']') {
        found = found || (pattern[q] <= c && c <= pattern[q + 2]);
        q += 3;
      } else {
        found = found || pattern[q] == c;
        ++q;
      }
    }
    if (q >= pattern.size()) return std::optional<bool>{};  // no closing ']': literal '['
    pp = q + 1;
    return std::optional<bool>{found != negate};
  };
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star_p = p++;
      star_t = t;
      continue;
    }
    if (p < pattern.size()) {
      if (pattern[p] == '?') {
        ++p, ++t;
        continue;
      }
      if (pattern[p] == '[') {
        std::size_t pp = p;
        if (const auto ok = match_class(pp, text[t])) {
          if (*ok) {
            p = pp, ++t;
            continue;
          }
        } else if (text[t] == '[') {
          ++p, ++t;
          continue;
        }
      } else if (pattern[p] == text[t]) {
        ++p, ++t;
        continue;
      }
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p + 1;
    t = ++star_t;
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::optional<Range> parse_range(std::string_view s) {
  std::size_t p = 0;
  const auto integer = [&]() -> std::optional<int> {
    const std::size_t from = p;
    if (p < s.size() && s[p] == '-') ++p;
    const std::size_t digits = p;
    while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p]))) ++p;
    if (p == digits) return std::nullopt;
    return parse_int(s.substr(from, p - from));
  };
  const auto spaces = [&] {
    while (p < s.size() && s[p] == ' ') ++p;
  };
  const auto lo = integer();
  if (!lo) return std::nullopt;
  if (p == s.size()) return Range{*lo, *lo};
  spaces();
  if (p < s.size() && (s[p] == ':' || s[p] == '-')) {
    ++p;
  } else if (s.substr(p, 2) == "to" && p > 0 && s[p - 1] == ' ') {
    p += 2;
    if (p >= s.size() || s[p] != ' ') return std::nullopt;
  } else {
    return std::nullopt;
  }
  spaces();
  const auto hi = integer();
  if (!hi || p != s.size()) return std::nullopt;
  return Range{*lo, *hi};
}

}  // namespace trails::structure::detail
