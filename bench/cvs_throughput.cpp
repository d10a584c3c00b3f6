// Throughput of CvSet::compute on synthetic frames (no files): frames per second for the
// Trails-MD feature types and the fitted CVs, without a box, orthorhombic and triclinic, on 1
// and 2 threads. Run: build/bench/bench_cvs_throughput [n_frames]. Prints a Markdown table.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "trails/cvs/cv_set.h"

using namespace trails;

int main(int argc, char** argv) {
  const int n_frames = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int n_atoms = 600, atoms_per_residue = 10;
  structure::Topology topology;
  const char* names[atoms_per_residue] = {"N", "H", "CA", "HA", "CB", "HB", "CG", "C", "O", "CD"};
  for (int i = 0; i < n_atoms; ++i) {
    structure::Atom a;
    a.index = i;
    a.name = names[i % atoms_per_residue];
    a.element = a.name.substr(0, 1);
    a.resname = "ALA";
    a.resid = a.resindex = i / atoms_per_residue;
    a.mass = a.element == "H" ? 1.008 : 12.011;
    topology.atoms.push_back(a);
  }
  // A compact random "protein" of 60 residues in a 4 nm blob; frames are noisy copies.
  std::mt19937_64 gen(1);
  std::normal_distribution<double> blob(0.0, 0.8), noise(0.0, 0.05);
  std::vector<double> reference(3 * n_atoms);
  for (double& x : reference) x = blob(gen) + 2.5;
  std::vector<double> frames(std::size_t(n_frames) * reference.size());
  for (std::size_t k = 0; k < frames.size(); ++k)
    frames[k] = reference[k % reference.size()] + noise(gen);

  std::vector<int> heavy, ca;
  for (const auto& a : topology.atoms) {
    if (a.element != "H") heavy.push_back(a.index);
    if (a.name == "CA") ca.push_back(a.index);
  }
  std::vector<int> first100(heavy.begin(), heavy.begin() + 100);
  struct Case {
    std::string label;
    cvs::CvSpec spec;
  };
  auto make = [](std::string kind, std::vector<int> atoms) {
    cvs::CvSpec s;
    s.name = kind;
    s.kind = std::move(kind);
    if (!atoms.empty()) s.groups = {std::move(atoms)};
    return s;
  };
  cvs::CvSpec q = make("q", {});
  q.native_cutoff_nm = 0.6;
  cvs::CvSpec phi_psi = make("phi_psi", {});
  phi_psi.encoding = cvs::AngleEncoding::Sincos;
  const std::vector<Case> cases = {
      {"distances, 100 atoms (4950 pairs)", make("distances", first100)},
      {"fitted_coords, 420 heavy atoms", make("fitted_coords", heavy)},
      {"rmsd, 420 heavy atoms", make("rmsd", heavy)},
      {"rg, 600 atoms", make("rg", {})},
      {"phi_psi sincos, 60 residues", phi_psi},
      {"q, native contacts of 420 heavy atoms", q},
      {"contacts, 60 CA", make("contacts", ca)},
  };
  const structure::Box ortho = {6, 0, 0, 0, 6, 0, 0, 0, 6};
  const double s2 = std::sqrt(2.0);
  const structure::Box dodecahedron = {6, 0, 0, 0, 6, 0, 3, 3, 3 * s2};
  std::printf("| CV (%d frames, %d atoms) | box | threads | columns | frames/s |\n", n_frames,
              n_atoms);
  std::printf("|---|---|---|---|---|\n");
  for (auto c : cases) {
    if (c.spec.kind == "rg") {
      c.spec.groups = {std::vector<int>(n_atoms)};
      for (int i = 0; i < n_atoms; ++i) c.spec.groups[0][i] = i;
    }
    const cvs::CvSet set({c.spec}, topology, reference);
    std::vector<double> out(std::size_t(n_frames) * set.dimension());
    for (const auto& [box_name, box] :
         std::vector<std::pair<std::string, std::optional<structure::Box>>>{
             {"none", std::nullopt}, {"cubic", ortho}, {"dodecahedron", dodecahedron}}) {
      std::vector<std::optional<structure::Box>> boxes(n_frames, box);
      for (int threads : {1, 2}) {
        const auto t0 = std::chrono::steady_clock::now();
        set.compute(frames, n_frames, boxes, out, threads);
        const double s =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("| %s | %s | %d | %d | %.0f |\n", c.label.c_str(), box_name.c_str(), threads,
                    set.dimension(), n_frames / s);
      }
    }
  }
}
