// What of a failed walker's md.log goes into its error (docs/engines.md, "Failures").
#pragma once

#include <string>

namespace trails::engines::gromacs {

// md.log's text without GROMACS' citation blocks (from "++++ PLEASE READ AND CITE" to
// "--- Thank You ---", with the blank lines after each) and without trailing blank lines. mdrun
// prints those blocks at the start and again at exit, so when it reports a failure on stderr only
// (a refused -nb gpu, a bad thread count) the raw end of the log is nothing but references, and
// the lines that say what mdrun did last sit above them.
std::string without_citations(const std::string& log);

}  // namespace trails::engines::gromacs
