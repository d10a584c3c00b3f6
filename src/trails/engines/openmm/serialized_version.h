// Which OpenMM wrote a serialized System or Integrator, and reading one that this build's OpenMM
// may be too old for: OpenMM 8 writes some objects (CustomNonbondedForce, CustomIntegrator) in
// versions 7.7 rejects as "Unsupported version number". The error then names the file, the
// OpenMM that wrote it, the OpenMM this build runs, and the two ways out (docs/engines.md,
// "OpenMM 7.7 or 8"). Engine-internal: includes no OpenMM header.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace trails::engines::openmm {

// The root element's openmmVersion attribute ("8.1.2"); nullopt when there is none (an
// Integrator, or XML written by hand).
std::optional<std::string> serialized_openmm_version(std::string_view xml);

// True when version a is newer than b, comparing dot-separated numbers ("8.0" > "7.7.0").
bool newer_openmm_version(std::string_view a, std::string_view b);

// Deserializes `xml` (read from `file`) as a System, or an Integrator when `integrator`, with
// this process's OpenMM, and discards it. Throws InputError when OpenMM cannot read it: naming
// the writer (the openmmVersion attribute, else `prepared_by`, the version of the Python OpenMM
// that prepared the file; empty: unknown), and, when the writer is newer than this OpenMM, what
// to do.
void check_deserializable(const std::string& xml, const std::filesystem::path& file,
                          bool integrator, const std::string& prepared_by);

}  // namespace trails::engines::openmm
