#include "trails/structure/gro.h"

#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <sstream>

#include "trails/core/error.h"
#include "trails/structure/box.h"
#include "trails/structure/text_fields.h"

namespace trails::structure {
namespace {

using detail::columns;
using detail::parse_double;
using detail::parse_int;
using detail::trim;

class GroReader {
 public:
  GroReader(std::istream& in, std::string source) : in_(in), source_(std::move(source)) {}

  StructureFile read() {
    std::string title;
    while (next_line(title)) {
      if (!result_.frames.empty() && trim(title).empty()) {
        // Trailing blank lines after the last frame are harmless.
        std::string rest;
        bool more = false;
        while (next_line(rest)) more = more || !trim(rest).empty();
        if (!more) break;
        throw error("blank title line between frames");
      }
      read_frame();
    }
    if (result_.frames.empty())
      throw core::InputError(source_ +
                             ": empty file: a GRO file starts with a title line and the "
                             "atom count");
    finish_topology();
    return std::move(result_);
  }

 private:
  bool next_line(std::string& line) {
    if (!std::getline(in_, line)) return false;
    ++line_no_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }

  void need_line(std::string& line, const std::string& what) {
    if (!next_line(line)) {
      ++line_no_;
      throw error("file ends early: expected " + what);
    }
  }

  core::InputError error(const std::string& what) const {
    return core::InputError(fmt::format("{}:{}: {}", source_, line_no_, what));
  }

  void read_frame() {
    std::string line;
    need_line(line, "the atom count (line 2 of a GRO frame)");
    const auto count = parse_int(line);
    if (!count || *count < 0)
      throw error(fmt::format("bad atom count '{}'; expected a non-negative integer", trim(line)));
    const std::size_t n = static_cast<std::size_t>(*count);
    const bool first = result_.frames.empty();
    if (!first && n != result_.topology.atoms.size())
      throw error(fmt::format("frame {} has {} atoms but the first frame has {}",
                              result_.frames.size() + 1, n, result_.topology.atoms.size()));
    std::vector<double> positions;
    positions.reserve(3 * n);
    for (std::size_t i = 0; i < n; ++i) {
      need_line(line, fmt::format("atom {} of {}", i + 1, n));
      atom_line(line, i, first, positions);
    }
    need_line(line, "the box line after the atoms");
    result_.frames.push_back(std::move(positions));
    result_.boxes.push_back(box_line(line));
  }

  // Coordinates start in column 21; their width is the distance between decimal points
  // (GROMACS writes higher precision files with wider fields).
  std::size_t field_width(std::string_view line) const {
    const auto p1 = line.find('.', 20);
    const auto p2 = p1 == std::string_view::npos ? p1 : line.find('.', p1 + 1);
    if (p2 == std::string_view::npos)
      throw error("atom line has no coordinates in columns 21 onwards");
    return p2 - p1;
  }

  void atom_line(std::string_view line, std::size_t i, bool first, std::vector<double>& positions) {
    if (width_ == 0) width_ = field_width(line);
    const std::size_t end = 20 + 3 * width_;
    if (line.size() < end)
      throw error(
          fmt::format("atom line has {} characters; columns 1-{} must hold residue, "
                      "atom and x y z fields",
                      line.size(), end));
    for (std::size_t k = 0; k < 3; ++k) {
      const std::size_t from = 21 + k * width_;
      const auto value = parse_double(columns(line, from, from + width_ - 1));
      if (!value)
        throw error(fmt::format("bad {} coordinate '{}' (columns {}-{}); expected a number in nm",
                                "xyz"[k], trim(columns(line, from, from + width_ - 1)), from,
                                from + width_ - 1));
      positions.push_back(*value);
    }
    if (!first) return;
    Atom atom;
    atom.index = static_cast<int>(i);
    const auto resid = parse_int(columns(line, 1, 5));
    if (!resid)
      throw error(fmt::format("bad residue number '{}' (columns 1-5); expected an integer",
                              trim(columns(line, 1, 5))));
    atom.resid = *resid;
    atom.resname = std::string(trim(columns(line, 6, 10)));
    atom.name = std::string(trim(columns(line, 11, 15)));
    atom.serial = parse_int(columns(line, 16, 20)).value_or(static_cast<int>(i) + 1);
    if (atom.name.empty()) throw error("empty atom name (columns 11-15)");
    detail::finish_atom(atom);
    result_.topology.atoms.push_back(std::move(atom));
  }

  std::optional<Box> box_line(std::string_view line) const {
    std::istringstream fields{std::string(line)};
    std::vector<double> v;
    std::string token;
    while (fields >> token) {
      const auto value = parse_double(token);
      if (!value) throw error(fmt::format("bad box value '{}'; expected a number in nm", token));
      v.push_back(*value);
    }
    if (v.size() != 3 && v.size() != 9)
      throw error(
          fmt::format("box line has {} values; expected 3 (rectangular) or 9 "
                      "(triclinic)",
                      v.size()));
    // GRO order: v1(x) v2(y) v3(z) v1(y) v1(z) v2(x) v2(z) v3(x) v3(y).
    Box box{v[0], 0, 0, 0, v[1], 0, 0, 0, v[2]};
    if (v.size() == 9) {
      box[1] = v[3];
      box[2] = v[4];
      box[3] = v[5];
      box[5] = v[6];
      box[6] = v[7];
      box[7] = v[8];
    }
    if (box_is_zero(box)) return std::nullopt;
    if (!(box[0] > 0 && box[4] > 0 && box[8] > 0))
      throw error("box line: the diagonal v1(x) v2(y) v3(z) must be positive");
    return box;
  }

  void finish_topology() {
    auto& atoms = result_.topology.atoms;
    int resindex = -1;
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      if (i == 0 || atoms[i].resid != atoms[i - 1].resid ||
          atoms[i].resname != atoms[i - 1].resname)
        ++resindex;
      atoms[i].resindex = resindex;
    }
    result_.topology.box = result_.boxes.front();
  }

  std::istream& in_;
  std::string source_;
  int line_no_ = 0;
  std::size_t width_ = 0;
  StructureFile result_;
};

}  // namespace

StructureFile read_gro(std::istream& in, const std::string& source) {
  return GroReader(in, source).read();
}

StructureFile read_gro(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw core::InputError(fmt::format("cannot open GRO file {}", path.string()));
  return read_gro(in, path.string());
}

void write_gro(std::ostream& out, const Topology& topology, std::span<const double> positions_nm,
               const std::optional<Box>& box, const std::string& title) {
  if (positions_nm.size() != 3 * topology.atoms.size())
    throw core::InputError(
        fmt::format("cannot write GRO: {} position values for {} atoms "
                    "(expected {})",
                    positions_nm.size(), topology.atoms.size(), 3 * topology.atoms.size()));
  std::string text = title.empty() ? std::string("written by Trails") : title;
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  text += fmt::format("\n{:5d}\n", topology.atoms.size());
  for (const Atom& atom : topology.atoms) {
    const std::size_t i = static_cast<std::size_t>(atom.index);
    double xyz[3];
    for (std::size_t k = 0; k < 3; ++k) {
      xyz[k] = positions_nm[3 * i + k];
      if (!(std::fabs(xyz[k]) < 9999.9995))
        throw core::InputError(fmt::format(
            "cannot write GRO: atom {} ({}) has coordinate {} nm, outside the %8.3f columns",
            atom.index, atom.name, xyz[k]));
    }
    // Numbers wrap at 100000 as GROMACS writes them.
    fmt::format_to(std::back_inserter(text), "{:5d}{:<5}{:>5}{:5d}{:8.3f}{:8.3f}{:8.3f}\n",
                   atom.resid % 100000, atom.resname.substr(0, 5), atom.name.substr(0, 5),
                   (atom.index + 1) % 100000, xyz[0], xyz[1], xyz[2]);
  }
  const Box b = box.value_or(Box{});
  text += fmt::format("{:10.5f}{:10.5f}{:10.5f}", b[0], b[4], b[8]);
  if (b[1] != 0 || b[2] != 0 || b[3] != 0 || b[5] != 0 || b[6] != 0 || b[7] != 0)
    text += fmt::format("{:10.5f}{:10.5f}{:10.5f}{:10.5f}{:10.5f}{:10.5f}", b[1], b[2], b[3], b[5],
                        b[6], b[7]);
  text += '\n';
  out << text;
}

void write_gro(std::ostream& out, const StructureFile& structure) {
  for (std::size_t f = 0; f < structure.frames.size(); ++f) {
    const std::optional<Box> box =
        f < structure.boxes.size() ? structure.boxes[f] : structure.topology.box;
    write_gro(out, structure.topology, structure.frames[f], box,
              fmt::format("written by Trails, frame {}", f));
  }
}

}  // namespace trails::structure
