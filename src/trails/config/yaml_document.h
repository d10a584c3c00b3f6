// Parses the text of a config file into its one YAML document, reporting syntax errors, an empty
// file and extra documents as problems. Works around yaml-cpp 0.7's YAML::LoadAll, which loops
// allocating forever on some malformed input (a stray `,`: jbeder/yaml-cpp#1040, fixed upstream
// in #1319): the first document comes from YAML::Load, and at most one more is looked for.
// A document whose anchors and aliases expand it past a bound (an alias bomb) is rejected here,
// before any conversion walks it.
// Internal to the config module.
#pragma once

#include <optional>
#include <string>

#include <yaml-cpp/yaml.h>

#include "trails/config/problems.h"

namespace trails::config::detail {

// The root node of the file's first document, or nullopt when there is nothing to validate
// (the problem has been recorded).
std::optional<YAML::Node> parse_document(const std::string& text, Problems& problems);

}  // namespace trails::config::detail
