#include "trails/structure/elements.h"

#include <array>
#include <cctype>
#include <utility>

namespace trails::structure {
namespace {

struct ElementRow {
  std::string_view symbol;
  double mass_amu;
};

// Elements that occur in biomolecular simulations (and a few more); conventional weights.
constexpr std::array<ElementRow, 46> kElements{{
    {"H", 1.008},   {"He", 4.0026}, {"Li", 6.94},   {"Be", 9.0122}, {"B", 10.81},   {"C", 12.011},
    {"N", 14.007},  {"O", 15.999},  {"F", 18.998},  {"Ne", 20.180}, {"Na", 22.990}, {"Mg", 24.305},
    {"Al", 26.982}, {"Si", 28.085}, {"P", 30.974},  {"S", 32.06},   {"Cl", 35.45},  {"Ar", 39.948},
    {"K", 39.098},  {"Ca", 40.078}, {"Ti", 47.867}, {"V", 50.942},  {"Cr", 51.996}, {"Mn", 54.938},
    {"Fe", 55.845}, {"Co", 58.933}, {"Ni", 58.693}, {"Cu", 63.546}, {"Zn", 65.38},  {"Ga", 69.723},
    {"Ge", 72.630}, {"As", 74.922}, {"Se", 78.971}, {"Br", 79.904}, {"Kr", 83.798}, {"Rb", 85.468},
    {"Sr", 87.62},  {"Ag", 107.87}, {"Cd", 112.41}, {"Sn", 118.71}, {"I", 126.90},  {"Xe", 131.29},
    {"Cs", 132.91}, {"Ba", 137.33}, {"Pt", 195.08}, {"Au", 196.97},
}};

std::string capitalize(std::string_view s) {
  std::string out(s);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto c = static_cast<unsigned char>(out[i]);
    out[i] = static_cast<char>(i == 0 ? std::toupper(c) : std::tolower(c));
  }
  return out;
}

}  // namespace

std::string normalize_element(std::string_view symbol) {
  if (symbol.empty() || symbol.size() > 2) return {};
  std::string cap = capitalize(symbol);
  for (const auto& row : kElements)
    if (row.symbol == cap) return cap;
  return {};
}

double element_mass(std::string_view symbol) {
  for (const auto& row : kElements)
    if (row.symbol == symbol) return row.mass_amu;
  return 0.0;
}

std::string guess_element(std::string_view atom_name, std::string_view resname,
                          bool two_letter_hint) {
  std::size_t begin = 0;
  while (begin < atom_name.size() && !std::isalpha(static_cast<unsigned char>(atom_name[begin])))
    ++begin;
  std::size_t end = begin;
  while (end < atom_name.size() && std::isalpha(static_cast<unsigned char>(atom_name[end]))) ++end;
  const std::string_view letters = atom_name.substr(begin, end - begin);
  if (letters.empty()) return {};

  // One-atom ion residues: "NA"/"NA+" -> Na, and CHARMM's names (SOD, POT, CLA, CAL, ...).
  std::string res_letters;
  for (char c : resname)
    if (std::isalpha(static_cast<unsigned char>(c))) res_letters += c;
  const bool ion_residue = capitalize(letters) == capitalize(res_letters);
  if (ion_residue) {
    static constexpr std::pair<std::string_view, std::string_view> kCharmmIons[] = {
        {"Sod", "Na"}, {"Pot", "K"},  {"Cla", "Cl"}, {"Cal", "Ca"},
        {"Ces", "Cs"}, {"Lit", "Li"}, {"Rub", "Rb"}, {"Bar", "Ba"}};
    for (const auto& [name, element] : kCharmmIons)
      if (capitalize(letters) == name) return std::string(element);
  }
  if (letters.size() >= 2) {
    std::string two = normalize_element(letters.substr(0, 2));
    if (!two.empty() && letters.size() == 2 && (ion_residue || two_letter_hint)) return two;
  }
  std::string one = normalize_element(letters.substr(0, 1));
  if (!one.empty()) return one;
  if (letters.size() >= 2) return normalize_element(letters.substr(0, 2));
  return {};
}

}  // namespace trails::structure
