#include "trails/cvs/cv_spec.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "trails/core/error.h"

namespace trails::cvs {

namespace {

using nlohmann::json;

// Keys each kind accepts besides name and kind.
const std::map<std::string, std::vector<std::string>, std::less<>>& keys_by_kind() {
  static const std::map<std::string, std::vector<std::string>, std::less<>> table = {
      {"distance", {"atoms", "unit"}},
      {"angle", {"atoms", "encoding"}},
      {"dihedral", {"atoms", "encoding"}},
      {"phi", {"resid", "chain", "encoding"}},
      {"psi", {"resid", "chain", "encoding"}},
      {"rmsd", {"atoms", "selection", "fit_atoms", "fit_selection", "reference", "unit"}},
      {"rg", {"atoms", "selection", "mass_weighted", "unit"}},
      {"fitted_coords", {"atoms", "selection", "fit_atoms", "fit_selection", "reference", "unit"}},
      {"contacts",
       {"atoms", "selection", "atoms_b", "selection_b", "switching", "cutoff", "n", "m"}},
      {"q",
       {"atoms", "selection", "reference", "beta", "lambda", "native_cutoff",
        "min_residue_separation"}},
      {"distances", {"atoms", "selection", "unit"}},
      {"phi_psi", {"resname", "encoding"}},
  };
  return table;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

class EntryReader {
 public:
  EntryReader(const json& entry, std::string where) : entry_(entry), where_(std::move(where)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& what) const {
    throw core::ConfigError(where_ + (name_.empty() ? "" : " (" + name_ + ")") + ": key '" + key +
                            "': " + what);
  }
  void set_name(std::string name) { name_ = std::move(name); }
  bool has(const char* key) const { return entry_.contains(key); }

  std::string string(const char* key) const {
    const json& v = entry_.at(key);
    if (!v.is_string()) fail(key, "expected a string, got " + std::string(v.type_name()));
    return v.get<std::string>();
  }
  double number(const char* key, bool positive) const {
    const json& v = entry_.at(key);
    if (!v.is_number()) fail(key, "expected a number, got " + std::string(v.type_name()));
    const double x = v.get<double>();
    if (positive && !(x > 0.0)) fail(key, "must be > 0, got " + v.dump());
    return x;
  }
  int integer(const char* key, int min_value) const {
    const json& v = entry_.at(key);
    if (!v.is_number_integer()) fail(key, "expected an integer, got " + v.dump());
    const long long x = v.get<long long>();
    if (x < min_value || x > 1'000'000'000)
      fail(key, "must be an integer ≥ " + std::to_string(min_value) + ", got " + v.dump());
    return int(x);
  }
  bool boolean(const char* key) const {
    const json& v = entry_.at(key);
    if (!v.is_boolean()) fail(key, "expected true or false, got " + v.dump());
    return v.get<bool>();
  }
  std::vector<int> indices(const char* key) const {
    const json& v = entry_.at(key);
    if (!v.is_array()) fail(key, "expected a list of 0-based atom indices, got " + v.dump());
    std::vector<int> out;
    std::set<int> seen;
    for (const json& x : v) {
      if (!x.is_number_integer() || x.get<long long>() < 0 || x.get<long long>() > 1'000'000'000)
        fail(key, "expected 0-based atom indices (integers ≥ 0), found " + x.dump());
      const int i = int(x.get<long long>());
      if (!seen.insert(i).second) fail(key, "atom index " + std::to_string(i) + " is repeated");
      out.push_back(i);
    }
    if (out.empty()) fail(key, "the atom list is empty");
    return out;
  }

 private:
  const json& entry_;
  std::string where_;
  std::string name_;
};

void read_group(const EntryReader& r, const char* atoms_key, const char* selection_key,
                bool required, std::vector<int>* atoms, std::string* selection) {
  const bool has_atoms = r.has(atoms_key), has_selection = r.has(selection_key);
  if (has_atoms && has_selection)
    r.fail(selection_key,
           std::string("give either '") + atoms_key + "' or '" + selection_key + "', not both");
  if (has_atoms) *atoms = r.indices(atoms_key);
  if (has_selection) {
    *selection = r.string(selection_key);
    if (selection->empty()) r.fail(selection_key, "the selection is empty");
  }
  if (required && !has_atoms && !has_selection)
    r.fail(atoms_key, std::string("missing: give '") + atoms_key + "' (0-based atom indices) or '" +
                          selection_key + "' (a selection string)");
}

}  // namespace

const std::vector<std::string>& cv_kinds() {
  static const std::vector<std::string> kinds = {"distance", "angle", "dihedral",  "phi",
                                                 "psi",      "rmsd",  "rg",        "fitted_coords",
                                                 "contacts", "q",     "distances", "phi_psi"};
  return kinds;
}

bool kind_is_angular(std::string_view kind) {
  return kind == "angle" || kind == "dihedral" || kind == "phi" || kind == "psi" ||
         kind == "phi_psi";
}

bool kind_needs_reference(std::string_view kind) {
  return kind == "rmsd" || kind == "fitted_coords" || kind == "q";
}

CvSpec cv_spec_from_json(const nlohmann::json& entry, const std::string& where) {
  if (!entry.is_object()) {
    throw core::ConfigError(where +
                            ": expected a mapping such as {name: phi, kind: dihedral, "
                            "atoms: [4, 6, 8, 14]}, got " +
                            entry.dump());
  }
  EntryReader r(entry, where);
  CvSpec spec;
  if (!r.has("name")) r.fail("name", "missing: every CV needs a name (its column name)");
  spec.name = r.string("name");
  const bool name_ok =
      !spec.name.empty() && std::all_of(spec.name.begin(), spec.name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
      });
  if (!name_ok) r.fail("name", "'" + spec.name + "' must be non-empty letters, digits, _ - .");
  r.set_name(spec.name);

  if (!r.has("kind")) r.fail("kind", "missing: one of " + join(cv_kinds()));
  spec.kind = r.string("kind");
  const auto kind_it = keys_by_kind().find(spec.kind);
  if (kind_it == keys_by_kind().end())
    r.fail("kind", "unknown kind '" + spec.kind + "'; expected one of " + join(cv_kinds()));
  const std::vector<std::string>& allowed = kind_it->second;
  for (const auto& [key, value] : entry.items()) {
    if (key == "name" || key == "kind") continue;
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
      r.fail(key, "not a key of kind " + spec.kind + "; allowed: " + join(allowed));
  }
  const std::string& k = spec.kind;

  // Atom groups.
  if (k == "distance" || k == "angle" || k == "dihedral") {
    const std::size_t want = k == "distance" ? 2 : k == "angle" ? 3 : 4;
    if (!r.has("atoms"))
      r.fail("atoms",
             "missing: a " + k + " needs " + std::to_string(want) + " 0-based atom indices");
    spec.groups = {r.indices("atoms")};
    if (spec.groups[0].size() != want)
      r.fail("atoms", "a " + k + " needs exactly " + std::to_string(want) + " atom indices, got " +
                          std::to_string(spec.groups[0].size()));
  } else if (k == "rmsd" || k == "rg" || k == "fitted_coords" || k == "distances" ||
             k == "contacts" || k == "q") {
    spec.groups.emplace_back();
    read_group(r, "atoms", "selection", k != "q", &spec.groups[0], &spec.selection);
    if (k == "contacts" && (r.has("atoms_b") || r.has("selection_b"))) {
      spec.groups.emplace_back();
      read_group(r, "atoms_b", "selection_b", true, &spec.groups[1], &spec.selection_b);
    }
    if (r.has("fit_atoms") || r.has("fit_selection"))
      read_group(r, "fit_atoms", "fit_selection", false, &spec.fit_atoms, &spec.fit_selection);
    if (k == "distances" && spec.selection.empty() && spec.groups[0].size() < 2)
      r.fail("atoms", "distances needs at least 2 atoms");
    if (k == "contacts" && spec.groups.size() == 1 && spec.selection.empty() &&
        spec.groups[0].size() < 2)
      r.fail("atoms", "contacts within one group needs at least 2 atoms");
  }

  if (k == "phi" || k == "psi") {
    if (!r.has("resid")) r.fail("resid", "missing: the residue number (as in the structure file)");
    spec.resid = r.integer("resid", -1'000'000'000);
    if (r.has("chain")) spec.chain = r.string("chain");
  }
  if (r.has("resname")) {
    spec.resname = r.string("resname");
    if (spec.resname.empty()) r.fail("resname", "must not be empty (omit it for all residues)");
  }
  if (r.has("encoding")) {
    const std::string e = r.string("encoding");
    if (e == "raw")
      spec.encoding = AngleEncoding::Raw;
    else if (e == "sincos")
      spec.encoding = AngleEncoding::Sincos;
    else
      r.fail("encoding", "expected raw or sincos, got '" + e + "'");
  }
  if (r.has("unit")) {
    const std::string u = r.string("unit");
    if (u == "nm")
      spec.unit = LengthUnit::Nanometre;
    else if (u == "angstrom" || u == "A")
      spec.unit = LengthUnit::Angstrom;
    else
      r.fail("unit", "expected nm or angstrom, got '" + u + "'");
  }
  if (r.has("mass_weighted")) spec.mass_weighted = r.boolean("mass_weighted");
  if (r.has("switching")) {
    spec.switching = r.string("switching");
    if (spec.switching != "rational" && spec.switching != "hard")
      r.fail("switching", "expected rational or hard, got '" + spec.switching + "'");
  }
  if (r.has("cutoff")) spec.cutoff_nm = r.number("cutoff", true);
  if (r.has("n")) spec.n = r.integer("n", 1);
  if (r.has("m")) spec.m = r.integer("m", 1);
  if (spec.switching == "rational" && spec.m <= spec.n)
    r.fail(r.has("m") ? "m" : "n",
           "a rational switching function needs m > n (got n = " + std::to_string(spec.n) +
               ", m = " + std::to_string(spec.m) + ")");
  if (r.has("beta")) spec.beta_per_nm = r.number("beta", true);
  if (r.has("lambda")) spec.lambda = r.number("lambda", true);
  if (r.has("native_cutoff")) spec.native_cutoff_nm = r.number("native_cutoff", true);
  if (r.has("min_residue_separation"))
    spec.min_residue_separation = r.integer("min_residue_separation", 0);
  if (kind_needs_reference(k)) {
    spec.reference = r.has("reference") ? r.string("reference") : "conf_file";
    if (spec.reference.empty()) r.fail("reference", "must not be empty (omit it for conf_file)");
  }
  return spec;
}

void resolve_selections(CvSpec& spec,
                        const std::function<std::vector<int>(const std::string&)>& resolve) {
  if (!spec.selection.empty()) {
    if (spec.groups.empty()) spec.groups.emplace_back();
    spec.groups[0] = resolve(spec.selection);
    spec.selection.clear();
  }
  if (!spec.selection_b.empty()) {
    if (spec.groups.size() < 2) spec.groups.resize(2);
    spec.groups[1] = resolve(spec.selection_b);
    spec.selection_b.clear();
  }
  if (!spec.fit_selection.empty()) {
    spec.fit_atoms = resolve(spec.fit_selection);
    spec.fit_selection.clear();
  }
}

std::vector<CvSpec> trails_md_fallback_cvs(std::vector<int> protein_atoms) {
  CvSpec rg;
  rg.name = "rg";
  rg.kind = "rg";
  rg.groups = {protein_atoms};
  rg.mass_weighted = true;
  rg.unit = LengthUnit::Angstrom;
  CvSpec rmsd;
  rmsd.name = "rmsd";
  rmsd.kind = "rmsd";
  rmsd.groups = {std::move(protein_atoms)};
  rmsd.unit = LengthUnit::Angstrom;
  rmsd.reference = "conf_file";
  return {std::move(rg), std::move(rmsd)};
}

CvSpec trails_md_feature(std::string_view feature_type, std::vector<int> selection_atoms,
                         AngleEncoding encoding) {
  CvSpec spec;
  if (feature_type == "phi_psi") {
    spec.name = "phi_psi";
    spec.kind = "phi_psi";
    spec.encoding = encoding;
    return spec;
  }
  spec.kind = feature_type == "fitted_coords" ? "fitted_coords" : "distances";
  spec.name = spec.kind;
  spec.groups = {std::move(selection_atoms)};
  spec.unit = LengthUnit::Angstrom;
  if (spec.kind == "fitted_coords") spec.reference = "topology";
  return spec;
}

}  // namespace trails::cvs
