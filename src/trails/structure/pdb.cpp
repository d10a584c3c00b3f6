#include "trails/structure/pdb.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <iterator>

#include "trails/core/error.h"
#include "trails/core/units.h"
#include "trails/structure/box.h"
#include "trails/structure/residues.h"
#include "trails/structure/text_fields.h"

namespace trails::structure {
namespace {

using detail::columns;
using detail::parse_double;
using detail::parse_int;
using detail::trim;

using core::kAngstromPerNm;

class PdbReader {
 public:
  explicit PdbReader(std::string source) : source_(std::move(source)) {}

  StructureFile read(std::istream& in) {
    std::string line;
    while (std::getline(in, line)) {
      ++line_no_;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      const std::string_view record = trim(columns(line, 1, 6));
      if (record == "ATOM" || record == "HETATM") {
        atom_record(line);
      } else if (record == "CRYST1") {
        box_ = cryst1(line);
      } else if (record == "MODEL") {
        if (in_model_) throw error("MODEL record inside a model (missing ENDMDL)");
        if (!positions_.empty()) end_frame();
        in_model_ = true;
        model_line_ = line_no_;
      } else if (record == "ENDMDL") {
        if (!in_model_) throw error("ENDMDL record without a MODEL record");
        in_model_ = false;
        end_frame();
      } else if (record == "END") {
        if (in_model_) throw error("END record inside a model (missing ENDMDL)");
        if (!positions_.empty()) end_frame();
      }
    }
    if (in_model_) {
      ++line_no_;
      throw error(fmt::format("file ends inside the model opened at line {} (missing ENDMDL)",
                              model_line_));
    }
    if (!positions_.empty()) end_frame();
    if (result_.frames.empty())
      throw core::InputError(source_ + ": no ATOM or HETATM records: not a PDB structure");
    finish_topology();
    return std::move(result_);
  }

 private:
  core::InputError error(const std::string& what) const {
    return core::InputError(fmt::format("{}:{}: {}", source_, line_no_, what));
  }

  double coordinate(std::string_view line, std::size_t first, char axis) const {
    const auto value = parse_double(columns(line, first, first + 7));
    if (!value)
      throw error(fmt::format("bad {} coordinate '{}' (columns {}-{}); expected a number in Å",
                              axis, trim(columns(line, first, first + 7)), first, first + 7));
    return *value / kAngstromPerNm;
  }

  void atom_record(std::string_view line) {
    if (line.size() < 54)
      throw error(
          fmt::format("ATOM/HETATM record has {} characters; coordinates need columns "
                      "31-54",
                      line.size()));
    const double x = coordinate(line, 31, 'x');
    const double y = coordinate(line, 39, 'y');
    const double z = coordinate(line, 47, 'z');
    const int index = static_cast<int>(positions_.size() / 3);
    positions_.insert(positions_.end(), {x, y, z});
    if (!result_.frames.empty()) return;  // later models only contribute positions

    Atom atom;
    atom.index = index;
    atom.serial = parse_int(columns(line, 7, 11)).value_or(index + 1);  // hex/***** serials
    const std::string_view raw_name = columns(line, 13, 16);
    atom.name = std::string(trim(raw_name));
    atom.resname = std::string(trim(columns(line, 18, 21)));
    atom.chain = std::string(trim(columns(line, 22, 22)));
    const std::string_view resseq = columns(line, 23, 26);
    if (trim(resseq).empty()) {
      atom.resid = 0;
    } else if (const auto resid = parse_int(resseq)) {
      atom.resid = *resid;
    } else {
      throw error(fmt::format("bad residue number '{}' (columns 23-26); expected an integer",
                              trim(resseq)));
    }
    icodes_.push_back(columns(line, 27, 27).empty() ? ' ' : line[26]);
    atom.segid = std::string(trim(columns(line, 67, 76)));
    const std::string_view element = trim(columns(line, 77, 78));
    atom.element = normalize_element(element);
    atom.type = std::string(element);  // MDAnalysis's `type` for PDB files: the column as written
    if (atom.element.empty()) {
      // Names of two-letter elements start in column 13 ("FE  "); one-letter ones in 14.
      const bool starts_col13 = !raw_name.empty() && raw_name[0] != ' ' &&
                                !std::isdigit(static_cast<unsigned char>(raw_name[0]));
      atom.element = guess_element(atom.name, atom.resname, starts_col13);
    }
    detail::finish_atom(atom);
    result_.topology.atoms.push_back(std::move(atom));
  }

  std::optional<Box> cryst1(std::string_view line) const {
    if (line.size() < 54)
      throw error("CRYST1 record is too short: a, b, c, alpha, beta, gamma need columns 7-54");
    const std::size_t first[] = {7, 16, 25, 34, 41, 48};
    const std::size_t last[] = {15, 24, 33, 40, 47, 54};
    const char* names[] = {"a", "b", "c", "alpha", "beta", "gamma"};
    double v[6];
    for (int i = 0; i < 6; ++i) {
      const auto value = parse_double(columns(line, first[i], last[i]));
      if (!value)
        throw error(fmt::format("bad CRYST1 {} '{}' (columns {}-{})", names[i],
                                trim(columns(line, first[i], last[i])), first[i], last[i]));
      v[i] = *value;
    }
    // Writers without a box (e.g. some converters) put a 1 Å unit cube here.
    if (v[0] == 1 && v[1] == 1 && v[2] == 1 && v[3] == 90 && v[4] == 90 && v[5] == 90)
      return std::nullopt;
    try {
      return box_from_parameters(BoxParameters{v[0] / kAngstromPerNm, v[1] / kAngstromPerNm,
                                               v[2] / kAngstromPerNm, v[3], v[4], v[5]});
    } catch (const core::InputError& e) {
      throw error(fmt::format("CRYST1 record: {}", e.what()));
    }
  }

  void end_frame() {
    const std::size_t n = positions_.size() / 3;
    if (!result_.frames.empty() && n != result_.topology.atoms.size())
      throw error(fmt::format("model {} has {} atoms but the first model has {}",
                              result_.frames.size() + 1, n, result_.topology.atoms.size()));
    result_.frames.push_back(std::move(positions_));
    result_.boxes.push_back(box_);
    positions_.clear();
  }

  // Residue ordinals and MDAnalysis's segid fallback need the whole first model.
  void finish_topology() {
    auto& atoms = result_.topology.atoms;
    bool any_segid = false;
    for (const auto& a : atoms) any_segid = any_segid || !a.segid.empty();
    if (!any_segid)
      for (auto& a : atoms) a.segid = a.chain;
    int resindex = -1;
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      const bool same = i > 0 && atoms[i].resid == atoms[i - 1].resid &&
                        atoms[i].resname == atoms[i - 1].resname &&
                        atoms[i].segid == atoms[i - 1].segid &&
                        atoms[i].chain == atoms[i - 1].chain && icodes_[i] == icodes_[i - 1];
      if (!same) ++resindex;
      atoms[i].resindex = resindex;
    }
    result_.topology.box = result_.boxes.front();
  }

  std::string source_;
  int line_no_ = 0;
  bool in_model_ = false;
  int model_line_ = 0;
  std::optional<Box> box_;
  std::vector<double> positions_;
  std::vector<char> icodes_;
  StructureFile result_;
};

// PDB atom-name alignment: one-letter elements leave column 13 blank (" CA "), four-character
// names and two-letter elements start in column 13 ("FE  ", "HH31").
std::string pdb_atom_name(const Atom& atom) {
  const std::string name = atom.name.substr(0, 4);
  if (name.size() >= 4 || atom.element.size() == 2) return fmt::format("{:<4}", name);
  return fmt::format(" {:<3}", name);
}

// Residue names are right-justified in columns 18-20; four-character names use column 21 too.
std::string pdb_residue_name(const std::string& resname) {
  if (resname.size() <= 3) return fmt::format("{:>3} ", resname);
  return resname.substr(0, 4);
}

void check_sizes(const Topology& topology, std::span<const double> positions_nm,
                 const char* format) {
  if (positions_nm.size() != 3 * topology.atoms.size())
    throw core::InputError(
        fmt::format("cannot write {}: {} position values for {} atoms "
                    "(expected {})",
                    format, positions_nm.size(), topology.atoms.size(), 3 * topology.atoms.size()));
}

}  // namespace

StructureFile read_pdb(std::istream& in, const std::string& source) {
  return PdbReader(source).read(in);
}

StructureFile read_pdb(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw core::InputError(fmt::format("cannot open PDB file {}", path.string()));
  return read_pdb(in, path.string());
}

void write_pdb(std::ostream& out, const Topology& topology, std::span<const double> positions_nm,
               const std::optional<Box>& box, int model) {
  check_sizes(topology, positions_nm, "PDB");
  if (box) {
    const BoxParameters p = box_parameters(*box);
    out << fmt::format("CRYST1{:9.3f}{:9.3f}{:9.3f}{:7.2f}{:7.2f}{:7.2f} P 1           1\n",
                       p.a_nm * kAngstromPerNm, p.b_nm * kAngstromPerNm, p.c_nm * kAngstromPerNm,
                       p.alpha_deg, p.beta_deg, p.gamma_deg);
  }
  if (model >= 1) out << fmt::format("MODEL     {:4d}\n", model);
  std::string lines;
  for (const Atom& atom : topology.atoms) {
    const std::size_t i = static_cast<std::size_t>(atom.index);
    double xyz[3];
    for (int k = 0; k < 3; ++k) {
      xyz[k] = positions_nm[3 * i + static_cast<std::size_t>(k)] * kAngstromPerNm;
      if (!(std::fabs(xyz[k]) < 9999.9995))
        throw core::InputError(fmt::format(
            "cannot write PDB: atom {} ({}) has coordinate {} Å, outside the %8.3f columns",
            atom.index, atom.name, xyz[k]));
    }
    std::string element = atom.element;
    for (char& c : element) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    // Serial and residue numbers wrap like mdtraj's and MDAnalysis's writers do.
    fmt::format_to(
        std::back_inserter(lines),
        "{:<6}{:5d} {}{}{}{}{:4d}{}   {:8.3f}{:8.3f}{:8.3f}{:6.2f}{:6.2f}      {:<4}{:>2}  \n",
        is_protein_residue(atom.resname) ? "ATOM" : "HETATM", (atom.index + 1) % 100000,
        pdb_atom_name(atom), ' ', pdb_residue_name(atom.resname),
        atom.chain.empty() ? ' ' : atom.chain[0], atom.resid % 10000, ' ', xyz[0], xyz[1], xyz[2],
        1.0, 0.0, atom.segid.substr(0, 4), element.substr(0, 2));
  }
  out << lines;
  if (model >= 1) out << "ENDMDL\n";
}

void write_pdb_end(std::ostream& out) { out << "END\n"; }

void write_pdb(std::ostream& out, const StructureFile& structure) {
  const bool models = structure.frames.size() > 1;
  for (std::size_t f = 0; f < structure.frames.size(); ++f) {
    const std::optional<Box> box =
        f < structure.boxes.size() ? structure.boxes[f] : structure.topology.box;
    write_pdb(out, structure.topology, structure.frames[f], box,
              models ? static_cast<int>(f) + 1 : -1);
  }
  write_pdb_end(out);
}

}  // namespace trails::structure
