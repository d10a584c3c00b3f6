#include "trails/structure/structure_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "trails/core/error.h"
#include "trails/core/fs.h"
#include "trails/structure/gro.h"
#include "trails/structure/pdb.h"

namespace trails::structure {

StructureFormat structure_format(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == ".pdb" || ext == ".ent") return StructureFormat::Pdb;
  if (ext == ".gro") return StructureFormat::Gro;
  throw core::InputError(
      fmt::format("{}: unknown structure format '{}'; Trails reads and writes "
                  ".pdb and .gro files",
                  path.string(), ext));
}

StructureFile read_structure(const std::filesystem::path& path) {
  return structure_format(path) == StructureFormat::Pdb ? read_pdb(path) : read_gro(path);
}

namespace {

void write_text(const std::filesystem::path& path, const std::string& text) {
  // Whole file or nothing: a structure is written once and read by other programs.
  core::write_file_atomic(path, text);
}

}  // namespace

void write_structure(const std::filesystem::path& path, const Topology& topology,
                     std::span<const double> positions_nm, const std::optional<Box>& box) {
  const StructureFormat format = structure_format(path);
  std::ostringstream out;
  if (format == StructureFormat::Pdb) {
    write_pdb(out, topology, positions_nm, box);
    write_pdb_end(out);
  } else {
    write_gro(out, topology, positions_nm, box);
  }
  write_text(path, out.str());
}

void write_structure(const std::filesystem::path& path, const StructureFile& structure) {
  const StructureFormat format = structure_format(path);
  std::ostringstream out;
  if (format == StructureFormat::Pdb)
    write_pdb(out, structure);
  else
    write_gro(out, structure);
  write_text(path, out.str());
}

}  // namespace trails::structure
