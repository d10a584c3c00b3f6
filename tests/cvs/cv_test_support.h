// Test-only helpers for tests/cvs: a tiny fixed-column PDB reader (so these tests do not depend
// on the structure module's reader), the committed frame files, and a bridge that asks
// tests/cvs/reference_cvs.py (mdtraj / MDAnalysis under /usr/bin/python3) for reference values.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "trails/structure/topology.h"

namespace trails::cvs::testing {

inline std::string structure_path(const std::string& name) {
  return std::string(TRAILS_TEST_DATA) + "/structures/" + name;
}

inline double element_mass(const std::string& element) {
  if (element == "H") return 1.008;
  if (element == "C") return 12.011;
  if (element == "N") return 14.007;
  if (element == "O") return 15.999;
  if (element == "S") return 32.06;
  return 0.0;
}

inline std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(' ');
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(' ') - b + 1);
}

struct Structure {
  structure::Topology topology;
  std::vector<double> positions_nm;
};

// ATOM/HETATM records by the PDB fixed columns; Å → nm; residues numbered in file order.
inline Structure read_pdb(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  Structure s;
  std::string line, last_residue;
  int resindex = -1;
  while (std::getline(in, line)) {
    if (line.rfind("ATOM", 0) != 0 && line.rfind("HETATM", 0) != 0) continue;
    line.resize(80, ' ');
    structure::Atom a;
    a.index = s.topology.n_atoms();
    a.serial = std::stoi(line.substr(6, 5));
    a.name = trim(line.substr(12, 4));
    a.resname = trim(line.substr(17, 3));
    a.chain = trim(line.substr(21, 1));
    a.resid = std::stoi(line.substr(22, 4));
    const std::string residue_key = line.substr(17, 10);
    if (residue_key != last_residue) {
      ++resindex;
      last_residue = residue_key;
    }
    a.resindex = resindex;
    a.element = trim(line.substr(76, 2));
    if (a.element.empty()) a.element = a.name.substr(0, 1);
    a.type = a.element;
    a.mass = element_mass(a.element);
    for (int k = 0; k < 3; ++k)
      s.positions_nm.push_back(std::stod(line.substr(30 + 8 * k, 8)) / 10.0);
    s.topology.atoms.push_back(a);
  }
  return s;
}

// Whitespace-separated numbers, '#' lines skipped.
inline std::vector<double> read_numbers(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in) << path;
  std::vector<double> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream row(line);
    double x;
    while (row >> x) out.push_back(x);
  }
  return out;
}

inline structure::Box read_box(const std::string& path) {
  const auto v = read_numbers(path);
  EXPECT_EQ(v.size(), 9u);
  structure::Box b{};
  for (int k = 0; k < 9; ++k) b[k] = v[k];
  return b;
}

inline nlohmann::json box_json(const structure::Box& b) {
  return {{b[0], b[1], b[2]}, {b[3], b[4], b[5]}, {b[6], b[7], b[8]}};
}

// Runs reference_cvs.py on `items` and returns {id: result}.
inline nlohmann::json reference_values(const std::vector<nlohmann::json>& items) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::temp_directory_path() / ("trails-cvs-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path request = dir / "request.json", response = dir / "response.json";
  std::ofstream(request) << nlohmann::json{{"items", items}}.dump();
  const std::string command = "/usr/bin/python3 -W ignore " + std::string(TRAILS_SOURCE_DIR) +
                              "/tests/cvs/reference_cvs.py " + request.string() + " " +
                              response.string();
  const int rc = std::system(command.c_str());
  EXPECT_EQ(rc, 0) << command;
  nlohmann::json out;
  if (rc == 0) std::ifstream(response) >> out;
  fs::remove_all(dir);
  return out;
}

}  // namespace trails::cvs::testing
