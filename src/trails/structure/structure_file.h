// Structure files (PDB, GRO) as Trails reads and writes them: a Topology plus one or more
// frames of positions (n_atoms × 3 doubles, nm, atom-major) with an optional box per frame.
// The format follows the file extension (.pdb/.ent, .gro). Bad files throw core::InputError
// naming file:line and what is wrong; writers throw InputError for values the format cannot
// hold and core::StoreError (naming the path) when the file cannot be written.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <vector>

#include "trails/structure/topology.h"

namespace trails::structure {

struct StructureFile {
  Topology topology;                        // topology.box == boxes[0]
  std::vector<std::vector<double>> frames;  // one per MODEL (PDB) or frame block (GRO), nm
  std::vector<std::optional<Box>> boxes;    // parallel to frames

  int n_frames() const { return static_cast<int>(frames.size()); }
};

enum class StructureFormat { Pdb, Gro };

// Format from the extension (case-insensitive); throws InputError for anything else.
StructureFormat structure_format(const std::filesystem::path& path);

// Reads a PDB or GRO file by extension. Always at least one frame.
StructureFile read_structure(const std::filesystem::path& path);

// Writes one frame (`positions_nm`: n_atoms × 3) to a PDB or GRO file by extension.
void write_structure(const std::filesystem::path& path, const Topology& topology,
                     std::span<const double> positions_nm, const std::optional<Box>& box);
// Writes every frame (PDB: MODEL records when more than one; GRO: one block per frame).
void write_structure(const std::filesystem::path& path, const StructureFile& structure);

}  // namespace trails::structure
