// Comma-separated numbers given on the command line (`--start -1.2,0.5`, `--n-bins 40,40`),
// turned into the typed values the report requests take. Parsed here rather than by CLI11 so
// that negative values are plain values and every error names the option: UsageError (exit 2).
// Private to apps/trails.
#pragma once

#include <string_view>
#include <vector>

namespace trails::app {

// Finite reals, at least one.
std::vector<double> parse_real_list(std::string_view option, std::string_view text);
// Integers >= minimum, at least one.
std::vector<int> parse_int_list(std::string_view option, std::string_view text, int minimum);

}  // namespace trails::app
