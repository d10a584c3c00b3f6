// The molecular input files of an OpenMM run, checked with the rest of the file so every problem
// is reported at once (the preparation script, share/trails/prepare_openmm.py, repeats these
// rules for its own callers): which structure and topology formats combine
// (docs/engines.md, "Inputs"), system.project_file against the engine and cvs:, and the format of
// system.trajectory_topology_file (cross_checks.h).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "trails/config/cross_checks.h"

namespace trails::config::detail {
namespace {

// The extension of a set, valid path key in lower case ("" when unset or invalid).
std::string extension_of(const RawConfig& raw, const std::string& key) {
  const Entry& e = raw.at(key);
  if (!e.valid || !e.value.is_string()) return "";
  std::string ext = std::filesystem::path(e.value.get<std::string>()).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext.empty() ? "(none)" : ext;
}

bool extension_in(const std::string& ext, const std::vector<std::string>& choices) {
  return std::find(choices.begin(), choices.end(), ext) != choices.end();
}

bool is_set(const RawConfig& raw, const std::string& key) {
  const Entry& e = raw.at(key);
  return e.present && !e.value.is_null() && !(e.value.is_array() && e.value.empty());
}

const std::vector<std::string> kStructures = {".pdb", ".gro", ".crd", ".rst7", ".ncrst", ".inpcrd"};
const std::vector<std::string> kTopologies = {".top", ".prmtop", ".parm7", ".pdb"};

// Trails-MD's OpenMM inputs (docs/engines.md, "Preparation (once per campaign)"): GRO/PDB/inpcrd +
// .top or prmtop, a PDB with system_file (PDB as topology), and Trails' PDB + system.forcefield.
void check_structure_inputs(const RawConfig& raw, Problems& problems) {
  const std::string conf = extension_of(raw, "system.conf_file");
  const std::string top = extension_of(raw, "system.top_file");
  const Entry& conf_e = raw.at("system.conf_file");
  const Entry& top_e = raw.at("system.top_file");
  const bool parameters = is_set(raw, "system.system_file") || is_set(raw, "system.forcefield");
  if (!conf.empty() && !extension_in(conf, kStructures)) {
    problems.add(
        conf_e.value_at, "system.conf_file",
        "unsupported structure format '" + conf +
            "'; give a .pdb, .gro or Amber coordinate file (.inpcrd, .rst7, .ncrst, .crd)");
  }
  if (!top.empty() && !extension_in(top, kTopologies)) {
    problems.add(top_e.value_at, "system.top_file",
                 "unsupported topology format '" + top +
                     "'; give a GROMACS .top, an Amber .prmtop/.parm7, or a .pdb together with "
                     "system.system_file");
  }
  if (top == ".pdb" && !parameters) {
    problems.add(top_e.value_at, "system.top_file",
                 "a PDB topology holds no force field: set system.system_file (a make_system "
                 "module or a System .xml) or system.forcefield, or give a .top/.prmtop");
  }
  if (conf == ".pdb" && top.empty() && !parameters && top_e.valid) {
    problems.add(conf_e.value_at, "system.top_file",
                 "system.conf_file is a PDB without parameters; set system.top_file "
                 "(.prmtop/.parm7/.top), system.system_file (System XML or make_system module) "
                 "or system.forcefield");
  }
  if (extension_in(conf, {".gro", ".crd", ".rst7", ".ncrst", ".inpcrd"}) && top.empty() &&
      !is_set(raw, "system.system_file") && top_e.valid) {
    problems.add(conf_e.value_at, "system.top_file",
                 "system.conf_file (" + conf +
                     ") holds no topology; set system.top_file (.top for a .gro, .prmtop/.parm7 "
                     "for Amber coordinates)");
  }
}

}  // namespace

void check_molecular_inputs(const RawConfig& raw, Problems& problems) {
  const Entry& traj_top_e = raw.at("system.trajectory_topology_file");
  if (is_builtin(raw) && traj_top_e.valid && traj_top_e.value.is_string()) {
    problems.add(traj_top_e.value_at, "system.trajectory_topology_file",
                 "needs a molecular engine (engine.md_engine: openmm); the built-in engine "
                 "writes no atoms; remove the key");
  }
  const Entry& md = raw.at("engine.md_engine");
  if (!raw.blocks.count("engine") || (md.present && !md.valid) || !is_openmm(raw)) return;
  if (raw.at("system.conf_file").value.is_null()) return;  // check_engine said it
  check_structure_inputs(raw, problems);
  const std::string traj_top = extension_of(raw, "system.trajectory_topology_file");
  if (!traj_top.empty() && !extension_in(traj_top, {".pdb", ".ent", ".gro"})) {
    problems.add(traj_top_e.value_at, "system.trajectory_topology_file",
                 "Trails reads the trajectory topology from a .pdb or .gro of the system's atoms, "
                 "got '" +
                     traj_top +
                     "'; give one (e.g. system.conf_file) or remove the key (the prepared "
                     "topology is used then)");
  }
}

// system.project_file gives the fixed CVs of a molecular run: not with the built-in engine
// (its CVs are its coordinates), not next to a cvs: block, not as a learned space's side output.
void check_project_file(const RawConfig& raw, Problems& problems) {
  const Entry& pf = raw.at("system.project_file");
  if (!pf.present || !pf.valid || pf.value.is_null()) return;
  if (is_builtin(raw)) {
    problems.add(pf.value_at, "system.project_file",
                 "needs a molecular engine (engine.md_engine: openmm); the built-in engine's CVs "
                 "are its coordinates");
    return;
  }
  const Entry& cvs = raw.at("cvs");
  if (cvs.present && cvs.valid && !cvs.value.is_null()) {
    problems.add(cvs.key_at, "system.project_file",
                 "is set together with cvs; both define the fixed CVs, keep one of them");
  }
}

}  // namespace trails::config::detail
