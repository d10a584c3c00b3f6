// Levenshtein distance, behind the "did you mean" suggestions of the config loader (keys and
// choices, case-insensitive) and of atom selections (keywords, case-sensitive).
#pragma once

#include <cstddef>
#include <string_view>

namespace trails::core {

enum class LetterCase { Sensitive, Insensitive };

std::size_t edit_distance(std::string_view a, std::string_view b,
                          LetterCase letters = LetterCase::Sensitive);

}  // namespace trails::core
