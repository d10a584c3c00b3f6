// Atom selections in the MDAnalysis selection language (the subset Trails-MD configs use):
// all none protein backbone heavy, name resname type element segid chainid (glob patterns
// * ? [..]), resid resnum index bynum (integers and ranges 1-10, 1:10, 1 to 10), not and or,
// parentheses. `and` and `or` have equal precedence and group left to right, `not` binds
// tighter — exactly as MDAnalysis parses them — so a config gives the same atoms in both.
// Pure functions of the topology; thread-safe. Errors are core::InputError with a caret line.
#pragma once

#include <string_view>
#include <vector>

#include "trails/structure/topology.h"

namespace trails::structure {

// Sorted, duplicate-free 0-based atom indices matching `expression`; may be empty.
// Throws InputError naming the expression, the column of the bad token and what to write
// instead ("unknown keyword 'resnmae' at column 1; did you mean 'resname'?").
std::vector<int> select(const Topology& topology, std::string_view expression);

// As select(), but an empty result throws InputError naming `what` (e.g. the config key
// "system.feature_selection") and the expression.
std::vector<int> select_nonempty(const Topology& topology, std::string_view expression,
                                 std::string_view what);

}  // namespace trails::structure
