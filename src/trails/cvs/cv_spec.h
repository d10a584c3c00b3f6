// The declarative description of one collective variable (a CvSpec), its JSON form as written
// under `cvs:` in a campaign config, and the Trails-MD feature presets (compat:feature-presets).
// A spec holds atom index lists (0-based); selection strings from a config are kept verbatim
// and resolved by the caller (resolve_selections) before a CvSet is built.
// cv_spec_from_json throws core::ConfigError naming the entry and the key.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace trails::cvs {

enum class AngleEncoding { Raw, Sincos };  // sincos: k angles → [sin θ1..k, cos θ1..k]
enum class LengthUnit { Nanometre, Angstrom };

struct CvSpec {
  std::string name;  // column name (multi-column kinds: "name:suffix")
  // distance | angle | dihedral | phi | psi | rmsd | rg | fitted_coords | contacts | q
  // | distances | phi_psi
  std::string kind;
  // Atom groups, 0-based. distance/angle/dihedral: groups[0] = the 2/3/4 atoms; rmsd, rg,
  // fitted_coords, distances: groups[0] = the selection; contacts: groups[0] (and optionally
  // groups[1]); q: groups[0] = candidate atoms (empty or absent = all heavy atoms).
  std::vector<std::vector<int>> groups;
  std::vector<int> fit_atoms;  // rmsd / fitted_coords: superposition atoms (empty = groups[0])

  // Unresolved selection strings from a config (empty = none): selection → groups[0],
  // selection_b → groups[1], fit_selection → fit_atoms.
  std::string selection;
  std::string selection_b;
  std::string fit_selection;

  std::optional<int> resid;  // phi / psi: residue number as in the structure file
  std::string chain;         // phi / psi: chain, when the resid is not unique
  std::string resname;       // phi_psi: only residues of this name (empty = all)

  AngleEncoding encoding = AngleEncoding::Raw;  // angle, dihedral, phi, psi, phi_psi
  LengthUnit unit = LengthUnit::Nanometre;      // distance, rmsd, rg, fitted_coords, distances
  bool mass_weighted = false;                   // rg

  // contacts: switching "rational" (n, m) or "hard"; r0 = cutoff.
  std::string switching = "rational";
  double cutoff_nm = 0.45;
  int n = 6;
  int m = 12;

  // q (Best, Hummer & Eaton 2013, as in the mdtraj documentation).
  double beta_per_nm = 50.0;
  double lambda = 1.8;
  double native_cutoff_nm = 0.45;
  int min_residue_separation = 3;

  // rmsd, fitted_coords, q: the reference structure as written in the config ("conf_file" or a
  // path; the caller resolves it) and its positions (n_atoms × 3, nm) once resolved. Empty
  // positions: the CvSet's default reference.
  std::string reference;
  std::vector<double> reference_positions_nm;
};

// The kinds a CvSpec may name, in documentation order.
const std::vector<std::string>& cv_kinds();

// Whether a kind measures an angle (so `encoding` applies) or needs a reference structure.
bool kind_is_angular(std::string_view kind);
bool kind_needs_reference(std::string_view kind);

// Parses one `cvs:` entry. `where` prefixes every message ("cvs[2]"). Checks key names (unknown
// keys rejected, with the allowed ones listed), types, atom-count per kind and value ranges;
// index ranges against the topology are checked by CvSet.
CvSpec cv_spec_from_json(const nlohmann::json& entry, const std::string& where = "cvs entry");

// Fills groups / fit_atoms from the selection strings with `resolve` (the selection language
// lives in trails::structure) and clears the strings. A spec without strings is left as is.
void resolve_selections(CvSpec& spec,
                        const std::function<std::vector<int>(const std::string&)>& resolve);

// --- Trails-MD presets -------------------------------------------------------------------------

// compat:fallback-cvs: [Rg(protein), RMSD(protein vs conf_file after fit)] in Å,
// Rg mass-weighted as MDAnalysis computes it. `protein_atoms` is the resolved "protein" selection.
std::vector<CvSpec> trails_md_fallback_cvs(std::vector<int> protein_atoms);

// compat:learned-features. `feature_type` is adaptive_feature_type:
// "distances" (and, as in Trails-MD, any unknown string) → all i<j pair distances of the
// selection with the minimum image, Å; "fitted_coords" → the selection's xyz after fitting it
// onto the reference (the topology file's coordinates), Å; "phi_psi" → every backbone φ, ψ
// (Trails-MD requires exactly 9 AIB residues; here any peptide works), radians, with `encoding`
// (adaptive_angle_encoding) applied to phi_psi only.
CvSpec trails_md_feature(std::string_view feature_type, std::vector<int> selection_atoms,
                         AngleEncoding encoding = AngleEncoding::Raw);

}  // namespace trails::cvs
