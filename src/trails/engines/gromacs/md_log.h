// The end of a failed walker's md.log for its error message (docs/engines.md, "Failures").
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace trails::engines::gromacs {

// The last `max_lines` lines of md.log's text without GROMACS' citation blocks (from "++++ PLEASE
// READ AND CITE" to "--- Thank You ---"). mdrun prints them at the start and again at exit, so on
// a failure that it reports on stderr only (a refused -nb gpu, a bad thread count) the raw tail
// is nothing but references, and the lines that say what mdrun did last sit above them.
std::string md_log_tail(const std::string& log, std::size_t max_lines);

// md_log_tail of the file ("" when it cannot be read).
std::string md_log_file_tail(const std::filesystem::path& path, std::size_t max_lines);

}  // namespace trails::engines::gromacs
