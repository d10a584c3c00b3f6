// `trails pca STRUCTURE` (commands.h): PathGennie's pcagen.py — ligand poses around the rigid
// protein and the PCA model of their pocket distances that `trails swarm` reads as a CV
// (docs/swarm.md, "trails pca"; docs/file-formats.md, "Ligand PCA model").
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "commands.h"
#include "trails/core/error.h"
#include "trails/core/npy.h"
#include "trails/core/output_target.h"
#include "trails/core/python.h"
#include "trails/ligand_pca/build.h"
#include "trails/swarm/pca_projection.h"

namespace trails::app {
namespace {

namespace fs = std::filesystem;

struct PcaOptions {
  ligand_pca::BuildOptions build;
  fs::path output = "pca_model.json";
  fs::path poses;  // optional .npy of every sample's ligand coordinates
  double attempts_factor = 10.0;
  fs::path from_pickle;  // PathGennie's pca_model.pkl to convert instead of building
};

// `trails pca STRUCTURE --from-pickle pca_model.pkl`: PathGennie's pickled model, with the
// feature atoms of STRUCTURE, written as Trails' JSON model (docs/swarm.md, "PathGennie's
// pca_model.pkl").
int cmd_convert_pickle(const PcaOptions& o) {
  const auto model =
      swarm::read_pathgennie_pca(o.from_pickle, o.build.structure, o.build.ligand_selection,
                                 o.build.around_distance, core::resolve_python({}));
  ligand_pca::write_pca_model(o.output, model);
  fmt::print("{}: {} pocket CA atoms x {} ligand heavy atoms = {} features, {} components\n",
             o.from_pickle.string(), model.ca_indices.size(), model.ligand_indices.size(),
             model.n_features(), model.n_components());
  std::string ratios;
  for (double v : model.explained_variance_ratio) ratios += fmt::format(" {:.3f}", v);
  if (!ratios.empty()) fmt::print("explained variance ratio:{}\n", ratios);
  fmt::print("wrote {}\n", o.output.string());
  return 0;
}

int cmd_pca(PcaOptions o) {
  if (!fs::is_regular_file(o.build.structure)) {
    throw core::UsageError(o.build.structure.string() + ": no such structure file");
  }
  // Both outputs through the one output-target check before any work (docs/reliability.md,
  // "Inputs and outputs"): a run's store, a directory or a FIFO is refused, exit 2.
  std::vector<std::pair<std::string, fs::path>> named{{"-o", o.output}};
  if (!o.poses.empty()) named.emplace_back("--poses", o.poses);
  const auto targets = core::check_outputs(named);
  if (!o.from_pickle.empty()) return cmd_convert_pickle(o);
  o.build.poses.max_attempts = static_cast<std::int64_t>(
      o.attempts_factor * static_cast<double>(o.build.poses.n_conformations));
  const ligand_pca::BuildResult r = ligand_pca::build_pca_model(o.build);
  auto model = r.model;
  model.provenance = {
      {"structure", fs::absolute(o.build.structure).string()},
      {"protein_selection", o.build.protein_selection},
      {"ligand_selection", o.build.ligand_selection},
      {"around_distance", o.build.around_distance},
      {"num_conformations", o.build.poses.n_conformations},
      {"max_radius", o.build.poses.max_radius},
      {"clash_cutoff", o.build.poses.clash},
      {"max_distance", o.build.poses.max_distance},
      {"rmsd_threshold", o.build.poses.rmsd_threshold},
      {"max_attempts", o.build.poses.max_attempts},
      {"seed", o.build.poses.seed},
      {"attempts", r.attempts},
      {"poses", r.poses.size()},
  };
  ligand_pca::write_pca_model(targets[0].path, model);
  fmt::print("{} pocket CA atoms x {} ligand heavy atoms = {} features\n", model.ca_indices.size(),
             model.ligand_indices.size(), model.n_features());
  fmt::print("{} unique poses from {} attempts (+ the input pose) = {} samples\n",
             r.poses.size() - 1, r.attempts, r.poses.size());
  std::string ratios;
  for (double v : model.explained_variance_ratio) ratios += fmt::format(" {:.3f}", v);
  fmt::print("explained variance ratio:{}\n", ratios);
  fmt::print("{} component(s) reach {:.0f}% of the variance; the model keeps {}\n",
             r.components_for_threshold, 100.0 * o.build.variance_threshold, model.n_components());
  if (!o.poses.empty()) {
    std::vector<double> flat;
    for (const auto& p : r.poses) flat.insert(flat.end(), p.begin(), p.end());
    const auto n = static_cast<std::int64_t>(r.poses.size());
    core::write_npy(targets[1].path, flat,
                    {n, static_cast<std::int64_t>(r.poses.front().size() / 3), 3});
    fmt::print("wrote {}\n", o.poses.string());
  }
  fmt::print("wrote {}\n", o.output.string());
  return 0;
}

}  // namespace

Command add_pca(CLI::App& app) {
  auto o = std::make_shared<PcaOptions>();
  auto* sub = app.add_subcommand(
      "pca", "Build a ligand-pocket PCA CV from generated ligand poses (PathGennie's pcagen)");
  sub->add_option("STRUCTURE", o->build.structure, "Protein-ligand structure (.pdb or .gro)")
      ->required();
  sub->add_option("-n,--num-conformations", o->build.poses.n_conformations,
                  "Unique ligand poses to generate")
      ->default_val(10000)
      ->check(CLI::Range(1, 10000000));
  sub->add_option("-o,--output", o->output, "PCA model file (JSON)")->default_val("pca_model.json");
  sub->add_option("--protein-sel", o->build.protein_selection, "Protein atoms (rigid)")
      ->default_val("protein");
  sub->add_option("--ligand-sel", o->build.ligand_selection, "Ligand atoms")
      ->default_val("resname LIG");
  sub->add_option("-v,--variance-threshold", o->build.variance_threshold,
                  "Report how many components reach this variance fraction")
      ->default_val(0.95)
      ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--around-distance", o->build.around_distance,
                  "Å: CA atoms within this distance of the ligand are features")
      ->default_val(20.0)
      ->check(CLI::PositiveNumber);
  sub->add_option("--components", o->build.n_components, "Components kept in the model")
      ->default_val(10)
      ->check(CLI::Range(1, 1000));
  sub->add_option("--max-radius", o->build.poses.max_radius, "Å: translation ball radius")
      ->default_val(50.0)
      ->check(CLI::PositiveNumber);
  sub->add_option("--clash-cutoff", o->build.poses.clash,
                  "Å: reject poses closer than this to the protein")
      ->default_val(1.0)
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--max-distance", o->build.poses.max_distance,
                  "Å: reject poses with every ligand atom farther than this from the protein")
      ->default_val(10.0)
      ->check(CLI::PositiveNumber);
  sub->add_option("--rmsd-threshold", o->build.poses.rmsd_threshold,
                  "Å: minimum plain RMSD between accepted poses")
      ->default_val(1.0)
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--attempts-factor", o->attempts_factor,
                  "Pose attempts = this × --num-conformations")
      ->default_val(10.0)
      ->check(CLI::PositiveNumber);
  sub->add_option("--seed", o->build.poses.seed, "Seed of the pose generator")->default_val(0);
  sub->add_option("--poses", o->poses, "Also write every sample's ligand coordinates (Å, .npy)");
  sub->add_option("--from-pickle", o->from_pickle,
                  "Convert PathGennie's pca_model.pkl (pcagen.py) to the JSON model instead of "
                  "building one; STRUCTURE, --ligand-sel and --around-distance must be "
                  "pcagen.py's");
  return {sub, [o] { return cmd_pca(*o); }};
}

}  // namespace trails::app
