#include "trails/cvs/backbone.h"

#include <map>
#include <optional>

#include "trails/core/error.h"

namespace trails::cvs {

namespace {

struct Residue {
  int resid = 0;
  std::string resname;
  std::string chain;
  std::map<std::string, int> atom_by_name;  // first atom of each name

  std::optional<int> find(const std::string& name) const {
    const auto it = atom_by_name.find(name);
    if (it == atom_by_name.end()) return std::nullopt;
    return it->second;
  }
  std::string describe() const {
    return resname + " " + std::to_string(resid) + (chain.empty() ? "" : " (chain " + chain + ")");
  }
};

std::vector<Residue> residues_of(const structure::Topology& topology) {
  std::vector<Residue> residues;
  for (const auto& atom : topology.atoms) {
    if (atom.resindex < 0)
      throw core::InputError("atom " + std::to_string(atom.index) +
                             " has a negative residue index");
    if (atom.resindex >= int(residues.size())) residues.resize(atom.resindex + 1);
    Residue& r = residues[atom.resindex];
    if (r.atom_by_name.empty()) {
      r.resid = atom.resid;
      r.resname = atom.resname;
      r.chain = atom.chain;
    }
    r.atom_by_name.emplace(atom.name, atom.index);
  }
  return residues;
}

const Residue* neighbour(const std::vector<Residue>& residues, std::size_t r, int step) {
  const long n = long(r) + step;
  if (n < 0 || n >= long(residues.size())) return nullptr;
  if (residues[n].chain != residues[r].chain || residues[n].atom_by_name.empty()) return nullptr;
  return &residues[n];
}

// The backbone atom `name` of residue r, or throws naming what is missing.
int require(const Residue& r, const std::string& name, const char* angle) {
  if (auto a = r.find(name)) return *a;
  throw core::ConfigError(std::string(angle) + " of residue " + r.describe() +
                          ": the residue has no atom named " + name);
}

std::optional<std::array<int, 4>> phi_of(const std::vector<Residue>& res, std::size_t r) {
  const auto n = res[r].find("N"), ca = res[r].find("CA"), c = res[r].find("C");
  if (!n || !ca || !c) return std::nullopt;
  std::optional<int> prev_c;
  if (const Residue* p = neighbour(res, r, -1)) prev_c = p->find("C");
  if (!prev_c) prev_c = res[r].find("CY");
  if (!prev_c) return std::nullopt;
  return std::array<int, 4>{*prev_c, *n, *ca, *c};
}

std::optional<std::array<int, 4>> psi_of(const std::vector<Residue>& res, std::size_t r) {
  const auto n = res[r].find("N"), ca = res[r].find("CA"), c = res[r].find("C");
  if (!n || !ca || !c) return std::nullopt;
  std::optional<int> next_n;
  if (const Residue* p = neighbour(res, r, +1)) next_n = p->find("N");
  if (!next_n) next_n = res[r].find("NT");
  if (!next_n) return std::nullopt;
  return std::array<int, 4>{*n, *ca, *c, *next_n};
}

std::size_t find_residue(const std::vector<Residue>& res, int resid, const std::string& chain,
                         const char* angle) {
  std::optional<std::size_t> found;
  for (std::size_t r = 0; r < res.size(); ++r) {
    if (res[r].atom_by_name.empty() || res[r].resid != resid) continue;
    if (!chain.empty() && res[r].chain != chain) continue;
    if (found) {
      throw core::ConfigError(std::string(angle) + ": resid " + std::to_string(resid) +
                              " occurs in more than one residue; give its chain");
    }
    found = r;
  }
  if (!found) {
    throw core::ConfigError(std::string(angle) + ": no residue with resid " +
                            std::to_string(resid) +
                            (chain.empty() ? std::string() : " in chain " + chain));
  }
  return *found;
}

std::array<int, 4> lookup(const structure::Topology& topology, int resid, const std::string& chain,
                          bool is_phi) {
  const char* angle = is_phi ? "phi" : "psi";
  const auto res = residues_of(topology);
  const std::size_t r = find_residue(res, resid, chain, angle);
  require(res[r], "N", angle);
  require(res[r], "CA", angle);
  require(res[r], "C", angle);
  const auto found = is_phi ? phi_of(res, r) : psi_of(res, r);
  if (!found) {
    throw core::ConfigError(std::string(angle) + " of residue " + res[r].describe() +
                            (is_phi ? ": no previous residue with an atom C (and no CY cap)"
                                    : ": no next residue with an atom N (and no NT cap)"));
  }
  return *found;
}

}  // namespace

std::array<int, 4> phi_atoms(const structure::Topology& topology, int resid,
                             const std::string& chain) {
  return lookup(topology, resid, chain, true);
}

std::array<int, 4> psi_atoms(const structure::Topology& topology, int resid,
                             const std::string& chain) {
  return lookup(topology, resid, chain, false);
}

std::vector<BackboneDihedral> backbone_dihedrals(const structure::Topology& topology,
                                                 const std::string& resname) {
  const auto res = residues_of(topology);
  std::vector<BackboneDihedral> out;
  for (std::size_t r = 0; r < res.size(); ++r) {
    if (!resname.empty() && res[r].resname != resname) continue;
    if (auto phi = phi_of(res, r)) out.push_back({"phi" + std::to_string(res[r].resid), *phi});
    if (auto psi = psi_of(res, r)) out.push_back({"psi" + std::to_string(res[r].resid), *psi});
  }
  if (out.empty()) {
    throw core::ConfigError("phi_psi: no backbone dihedral found" +
                            (resname.empty() ? std::string() : " among residues named " + resname) +
                            " (a residue needs atoms N, CA and C and a bonded neighbour)");
  }
  return out;
}

}  // namespace trails::cvs
