// Whether a configuration file sets a key itself, where a decision after loading depends on it
// and not only on the value: a run made before position grids, resumed (its stored
// configuration cannot name output.position_precision, so a value equal to the default must
// still be told from an absent key; docs/file-formats.md, "Quantised positions"). Reads the file
// again; a file that cannot be read or parsed sets nothing.
#pragma once

#include <filesystem>
#include <string>

namespace trails::config {

bool file_sets_key(const std::filesystem::path& file, const std::string& block,
                   const std::string& name);

}  // namespace trails::config
