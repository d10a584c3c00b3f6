// Internal to the structure readers and writers: column slicing and strict number parsing for
// fixed-column text formats, and the shared per-atom bookkeeping. Not for other modules.
#pragma once

#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "trails/structure/elements.h"
#include "trails/structure/topology.h"

namespace trails::structure::detail {

inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Columns `first`..`last` (1-based, inclusive), clipped to the line.
inline std::string_view columns(std::string_view line, std::size_t first, std::size_t last) {
  if (line.size() < first) return {};
  return line.substr(first - 1, last - first + 1);
}

inline std::optional<double> parse_double(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  if (text.front() == '+') text.remove_prefix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

inline std::optional<int> parse_int(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  if (text.front() == '+') text.remove_prefix(1);
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Fills element (when empty), type and mass the way every reader does.
inline void finish_atom(Atom& atom) {
  if (atom.element.empty()) atom.element = guess_element(atom.name, atom.resname);
  if (atom.type.empty()) {
    atom.type = atom.element;
    for (char& c : atom.type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  if (atom.mass == 0.0) atom.mass = element_mass(atom.element);
}

}  // namespace trails::structure::detail
