#include "trails/ligand_pca/build.h"

#include <algorithm>
#include <set>

#include <Eigen/Core>

#include "trails/analysis/moments.h"
#include "trails/analysis/pca.h"
#include "trails/core/error.h"
#include "trails/structure/selection.h"
#include "trails/structure/structure_file.h"

namespace trails::ligand_pca {
namespace {

std::vector<double> coordinates_in_angstrom(const std::vector<double>& frame,
                                            const std::vector<int>& atoms) {
  std::vector<double> out;
  out.reserve(atoms.size() * 3);
  for (int a : atoms) {
    const auto first = 3 * static_cast<std::size_t>(a);
    for (std::size_t k = 0; k < 3; ++k) out.push_back(10.0 * frame[first + k]);
  }
  return out;
}

// CA atoms (not in the ligand) within `around` Å of any ligand atom, minimum image when the
// structure has a box (MDAnalysis `around` is periodic too).
std::vector<int> pocket_ca(const structure::StructureFile& s, const std::vector<int>& ligand,
                           double around) {
  const std::set<int> in_ligand(ligand.begin(), ligand.end());
  std::span<const double> box;
  if (s.boxes[0]) box = *s.boxes[0];
  std::vector<int> out;
  for (const auto& atom : s.topology.atoms) {
    if (atom.name != "CA" || in_ligand.count(atom.index) > 0) continue;
    std::vector<double> d;
    const int ca[1] = {atom.index};
    append_ligand_features(ca, ligand, s.frames[0], box, d);
    if (*std::min_element(d.begin(), d.end()) <= around) out.push_back(atom.index);
  }
  return out;
}

}  // namespace

std::vector<double> fit_feature_pca(std::span<const double> rows, int n_samples, int n_features,
                                    int n_components, PcaModel& model) {
  const Eigen::Map<const analysis::FrameMatrix> x(rows.data(), n_samples, n_features);
  analysis::RunningMoments moments(n_features, 0);
  moments.add_segment(x);
  const analysis::PcaModel pca = analysis::fit_pca(moments);
  const int k = std::min(n_components, n_features);
  model.mean.assign(pca.projection.mean.data(), pca.projection.mean.data() + n_features);
  model.components.clear();
  for (int c = 0; c < k; ++c) {
    std::vector<double> row(static_cast<std::size_t>(n_features));
    for (int i = 0; i < n_features; ++i) row[static_cast<std::size_t>(i)] = pca.components(i, c);
    model.components.push_back(std::move(row));
  }
  model.explained_variance.assign(pca.explained_variance.data(), pca.explained_variance.data() + k);
  model.explained_variance_ratio.assign(pca.explained_variance_ratio.data(),
                                        pca.explained_variance_ratio.data() + k);
  model.n_samples = n_samples;
  return {pca.explained_variance_ratio.data(),
          pca.explained_variance_ratio.data() + pca.explained_variance_ratio.size()};
}

namespace {

FeatureAtoms feature_atoms_of(const structure::StructureFile& s, std::vector<int> ligand,
                              double around_distance, const std::string& ligand_key,
                              const std::filesystem::path& structure) {
  const auto& top = s.topology;
  FeatureAtoms a;
  a.n_atoms = top.n_atoms();
  for (int i : ligand) {
    if (top.atoms[static_cast<std::size_t>(i)].element != "H") a.ligand_heavy.push_back(i);
  }
  if (a.ligand_heavy.empty()) throw core::InputError(ligand_key + ": the ligand has no heavy atom");
  a.ca = pocket_ca(s, ligand, around_distance);
  if (a.ca.empty()) {
    throw core::InputError(std::string("no CA atom within ") +
                           (ligand_key == "--ligand-sel" ? "--around-distance " : "") +
                           std::to_string(around_distance) + " Å of the ligand in " +
                           structure.string());
  }
  a.ligand = std::move(ligand);
  return a;
}

}  // namespace

FeatureAtoms feature_atoms(const std::filesystem::path& structure,
                           const std::string& ligand_selection, double around_distance,
                           const std::string& ligand_key) {
  const structure::StructureFile s = structure::read_structure(structure);
  return feature_atoms_of(s, structure::select_nonempty(s.topology, ligand_selection, ligand_key),
                          around_distance, ligand_key, structure);
}

BuildResult build_pca_model(const BuildOptions& o) {
  const structure::StructureFile s = structure::read_structure(o.structure);
  const auto& top = s.topology;
  const std::vector<int> protein =
      structure::select_nonempty(top, o.protein_selection, "--protein-sel");
  const std::vector<int> ligand =
      structure::select_nonempty(top, o.ligand_selection, "--ligand-sel");
  std::vector<int> overlap;
  std::set_intersection(protein.begin(), protein.end(), ligand.begin(), ligand.end(),
                        std::back_inserter(overlap));
  if (!overlap.empty()) {
    throw core::InputError("--protein-sel '" + o.protein_selection + "' and --ligand-sel '" +
                           o.ligand_selection + "' share " + std::to_string(overlap.size()) +
                           " atom(s); the protein must not hold the ligand");
  }
  const FeatureAtoms atoms =
      feature_atoms_of(s, ligand, o.around_distance, "--ligand-sel", o.structure);
  BuildResult r;
  PcaModel& m = r.model;
  m.n_atoms = atoms.n_atoms;
  m.ligand_indices = atoms.ligand_heavy;
  m.ca_indices = atoms.ca;
  const std::vector<double> ligand_xyz = coordinates_in_angstrom(s.frames[0], ligand);
  Poses generated =
      generate_poses(coordinates_in_angstrom(s.frames[0], protein), ligand_xyz, o.poses);
  r.attempts = generated.attempts;
  r.poses = std::move(generated.poses);
  r.poses.push_back(ligand_xyz);  // the crystal pose, last (as PathGennie)
  // Features: the CA atoms (fixed) and the pose's heavy atoms, in plain distances — poses are
  // placed in the structure's own frame, not wrapped.
  std::vector<int> heavy_in_ligand;
  for (std::size_t i = 0; i < ligand.size(); ++i) {
    if (top.atoms[static_cast<std::size_t>(ligand[i])].element != "H") {
      heavy_in_ligand.push_back(static_cast<int>(i));
    }
  }
  const std::vector<double> ca_xyz = coordinates_in_angstrom(s.frames[0], m.ca_indices);
  const auto n_ca = static_cast<int>(m.ca_indices.size());
  std::vector<int> ca_local(static_cast<std::size_t>(n_ca)), lig_local;
  for (int i = 0; i < n_ca; ++i) ca_local[static_cast<std::size_t>(i)] = i;
  for (int i : heavy_in_ligand) lig_local.push_back(n_ca + i);
  std::vector<double> rows;
  std::vector<double> xyz_nm;
  for (const auto& pose : r.poses) {
    xyz_nm.assign(ca_xyz.begin(), ca_xyz.end());
    xyz_nm.insert(xyz_nm.end(), pose.begin(), pose.end());
    for (double& v : xyz_nm) v /= 10.0;
    append_ligand_features(ca_local, lig_local, xyz_nm, {}, rows);
  }
  const int n_samples = static_cast<int>(r.poses.size());
  if (n_samples < 2) throw core::InputError("fewer than 2 poses: nothing to analyse");
  const int n_features = n_ca * static_cast<int>(m.ligand_indices.size());
  const std::vector<double> ratios =
      fit_feature_pca(rows, n_samples, n_features, o.n_components, m);
  // How many components reach the variance threshold (reported; the model keeps n_components).
  double cumulative = 0.0;
  for (std::size_t c = 0; c < ratios.size(); ++c) {
    cumulative += ratios[c];
    if (cumulative >= o.variance_threshold) {
      r.components_for_threshold = static_cast<int>(c) + 1;
      break;
    }
  }
  return r;
}

}  // namespace trails::ligand_pca
