// Process trees (docs/reliability.md, "Signals, child processes and concurrent runs"): a child
// started with a tree token in its environment (TRAILS_PROCESS_TREE) passes it to every
// descendant, so end_process_tree (subprocess.h) reaches them all, setsid ones included. Tokens
// nest: a child started inside a tree carries OUTER:INNER, so ending a `trails worker`'s tree
// also ends the segment programs it started in trees of their own.
#pragma once

#include <string>

#include "trails/core/subprocess.h"

namespace trails::core {

// A fresh token, added to options.set_env as TRAILS_PROCESS_TREE after the tokens this process
// inherited; end_process_tree(token) ends the tree. run_process does this itself for
// options.end_descendants; a long-lived ChildProcess's owner calls it and ends the tree itself.
std::string join_process_tree(ProcessOptions& options);

}  // namespace trails::core
