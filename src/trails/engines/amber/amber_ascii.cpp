#include "trails/engines/amber/amber_ascii.h"

#include <charconv>
#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/engines/amber/amber_units.h"
#include "trails/structure/box.h"
#include "trails/structure/elements.h"

namespace trails::engines::amber {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void bad(const fs::path& file, const std::string& what) {
  throw core::InputError(file.string() + ": " + what);
}

std::vector<std::string> read_lines(const fs::path& file) {
  std::ifstream in(file);
  if (!in) bad(file, "cannot be read");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(' ');
  return a == std::string::npos ? std::string() : s.substr(a, s.find_last_not_of(' ') - a + 1);
}

double number(const std::string& field, const fs::path& file, std::size_t line) {
  const std::string t = trim(field);
  double v = 0.0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size()) {
    bad(file, fmt::format("line {}: '{}' is not a number", line + 1, field));
  }
  return v;
}

// Fixed-width numbers of lines [first, …) until `count` values are read.
std::vector<double> fixed_numbers(const std::vector<std::string>& lines, std::size_t& next,
                                  std::size_t count, std::size_t width, const fs::path& file) {
  std::vector<double> out;
  out.reserve(count);
  while (out.size() < count) {
    if (next >= lines.size()) {
      bad(file, fmt::format("ends after {} of {} expected values", out.size(), count));
    }
    const std::string& line = lines[next];
    for (std::size_t at = 0; at < line.size() && out.size() < count; at += width) {
      const std::string field = line.substr(at, width);
      if (trim(field).empty()) break;
      out.push_back(number(field, file, next));
    }
    ++next;
  }
  return out;
}

structure::Box box_of(const double* v, bool angles, const fs::path& file) {
  try {
    return structure::box_from_parameters({v[0] / kAngstromPerNm, v[1] / kAngstromPerNm,
                                           v[2] / kAngstromPerNm, angles ? v[3] : 90.0,
                                           angles ? v[4] : 90.0, angles ? v[5] : 90.0});
  } catch (const core::Error& e) {
    bad(file, std::string("box: ") + e.what());
  }
}

// %FLAG sections of a prmtop: the raw data lines of each, and the field width of its %FORMAT.
struct Section {
  std::size_t width = 0;
  std::size_t first_line = 0;
  std::vector<std::string> fields;
};

std::map<std::string, Section> prmtop_sections(const std::vector<std::string>& lines,
                                               const fs::path& file) {
  std::map<std::string, Section> sections;
  const std::regex format_re(R"(%FORMAT\((\d+)[aAiIeEfF](\d+))");
  Section* current = nullptr;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (line.rfind("%FLAG", 0) == 0) {
      current = &sections[trim(line.substr(5))];
      current->first_line = i;
      continue;
    }
    if (line.rfind("%FORMAT", 0) == 0 && current != nullptr) {
      std::smatch m;
      if (!std::regex_search(line, m, format_re))
        bad(file, fmt::format("line {}: {}", i + 1, line));
      current->width = std::stoul(m[2].str());
      continue;
    }
    if (line.rfind('%', 0) == 0 || current == nullptr || current->width == 0) continue;
    for (std::size_t at = 0; at < line.size(); at += current->width) {
      current->fields.push_back(line.substr(at, current->width));
    }
  }
  return sections;
}

const Section& section(const std::map<std::string, Section>& s, const char* name, std::size_t count,
                       const fs::path& file) {
  const auto it = s.find(name);
  if (it == s.end()) bad(file, fmt::format("no %FLAG {}: not an Amber prmtop", name));
  if (it->second.fields.size() < count) {
    bad(file,
        fmt::format("%FLAG {} has {} values, expected {}", name, it->second.fields.size(), count));
  }
  return it->second;
}

}  // namespace

Prmtop read_prmtop(const fs::path& file) {
  const auto lines = read_lines(file);
  const auto s = prmtop_sections(lines, file);
  const Section& pointers = section(s, "POINTERS", 28, file);
  const auto n_atoms = static_cast<std::size_t>(number(pointers.fields[0], file, 0));
  const auto n_residues = static_cast<std::size_t>(number(pointers.fields[11], file, 0));
  Prmtop p;
  p.periodic = number(pointers.fields[27], file, 0) != 0.0;
  const Section& names = section(s, "ATOM_NAME", n_atoms, file);
  const Section& masses = section(s, "MASS", n_atoms, file);
  const Section& labels = section(s, "RESIDUE_LABEL", n_residues, file);
  const Section& first = section(s, "RESIDUE_POINTER", n_residues, file);
  std::size_t residue = 0;
  for (std::size_t i = 0; i < n_atoms; ++i) {
    while (residue + 1 < n_residues &&
           static_cast<std::size_t>(number(first.fields[residue + 1], file, 0)) <= i + 1) {
      ++residue;
    }
    structure::Atom a;
    a.index = static_cast<int>(i);
    a.serial = static_cast<int>(i + 1);
    a.name = trim(names.fields[i]);
    a.resname = trim(labels.fields[residue]);
    a.resid = static_cast<int>(residue + 1);
    a.resindex = static_cast<int>(residue);
    a.element = structure::guess_element(a.name, a.resname);
    a.type = a.element;
    a.mass = number(masses.fields[i], file, masses.first_line);
    p.topology.atoms.push_back(std::move(a));
  }
  return p;
}

AmberState read_restart(const fs::path& file, int n_atoms) {
  if (is_netcdf(file)) return read_netcdf_restart(file, n_atoms);
  const auto lines = read_lines(file);
  if (lines.size() < 3) bad(file, "too short for an inpcrd/rst7 file");
  const std::string counts = trim(lines[1]);
  const int found = std::atoi(counts.c_str());
  if (found != n_atoms) {
    bad(file, fmt::format("line 2: {} atoms, expected {} (the prmtop's)", found, n_atoms));
  }
  AmberState s;
  const auto n = static_cast<std::size_t>(n_atoms) * 3;
  std::size_t next = 2;
  s.positions_nm = fixed_numbers(lines, next, n, 12, file);
  for (double& x : s.positions_nm) x /= kAngstromPerNm;
  std::size_t rest = 0;  // values after the positions: 0, 6 (box), 3N (velocities), 3N + 6
  for (std::size_t i = next; i < lines.size(); ++i) {
    rest += (lines[i].find_last_not_of(' ') + 1 + 11) / 12;  // npos + 1 == 0 for a blank line
  }
  if (rest >= n) {
    s.velocities = fixed_numbers(lines, next, n, 12, file);
    for (double& v : s.velocities) v *= kAmberVelocityScale / kAngstromPerNm;
  }
  if (next < lines.size() && !trim(lines[next]).empty()) {
    const auto box = fixed_numbers(lines, next, 6, 12, file);
    s.box = box_of(box.data(), true, file);
  }
  return s;
}

AmberFrames read_mdcrd(const fs::path& file, int n_atoms, bool periodic) {
  if (is_netcdf(file)) {
    bad(file, "is a NetCDF file; set engine.amber_trajectory_format: netcdf (or auto)");
  }
  const auto lines = read_lines(file);
  AmberFrames out;
  const auto n = static_cast<std::size_t>(n_atoms) * 3;
  std::size_t next = 1;  // after the title
  while (next < lines.size() && !trim(lines[next]).empty()) {
    const auto frame = fixed_numbers(lines, next, n, 8, file);
    for (const double x : frame) out.positions_nm.push_back(x / kAngstromPerNm);
    if (periodic) {
      const auto box = fixed_numbers(lines, next, 3, 8, file);
      const structure::Box b = box_of(box.data(), false, file);
      out.boxes.insert(out.boxes.end(), b.begin(), b.end());
    }
    ++out.n_frames;
  }
  return out;
}

}  // namespace trails::engines::amber
