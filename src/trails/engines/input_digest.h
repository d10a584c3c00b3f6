// The two helpers every engine preparation needs to key RUN_DIR/prepared/<digest>/ on its
// inputs: a file's bytes, and the 64-bit FNV-1a digest of bytes as 16 hex digits (stable across
// builds and platforms; not a security hash).
#pragma once

#include <filesystem>
#include <string>

namespace trails::engines {

// The whole file; InputError "<path>: cannot read" when it cannot be opened.
std::string read_file_bytes(const std::filesystem::path& path);

std::string fnv1a_hex(const std::string& bytes);

}  // namespace trails::engines
