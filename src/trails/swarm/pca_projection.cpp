#include "trails/swarm/pca_projection.h"

#include <algorithm>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/features/python_worker.h"
#include "trails/ligand_pca/build.h"
#include "trails/ligand_pca/pca_model.h"

namespace trails::swarm {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

class PcaModelProjection final : public features::Projection {
 public:
  PcaModelProjection(ligand_pca::PcaModel model, int components, std::string name, int n_atoms)
      : model_(std::move(model)), k_(components), name_(std::move(name)), n_atoms_(n_atoms) {}
  int dimension() const override { return k_; }
  std::vector<std::string> column_names() const override {
    std::vector<std::string> names;
    for (int i = 1; i <= k_; ++i) names.push_back(fmt::format("{}:pc{}", name_, i));
    return names;
  }
  void project(std::span<const double> frames, std::int64_t n_frames, std::span<const double> boxes,
               std::vector<double>& out) const override {
    const auto per_frame = static_cast<std::size_t>(n_atoms_) * 3;
    for (std::int64_t f = 0; f < n_frames; ++f) {
      const auto i = static_cast<std::size_t>(f);
      const auto box =
          boxes.size() >= 9 * (i + 1) ? boxes.subspan(9 * i, 9) : std::span<const double>();
      const auto features =
          ligand_pca::ligand_features(model_, frames.subspan(i * per_frame, per_frame), box);
      const auto z = ligand_pca::project_features(model_, features, k_);
      out.insert(out.end(), z.begin(), z.end());
    }
  }

 private:
  ligand_pca::PcaModel model_;
  int k_;
  std::string name_;
  int n_atoms_;
};

std::string text_or(const json& e, const char* key, const std::string& fallback,
                    const std::string& where) {
  if (!e.contains(key)) return fallback;
  if (!e[key].is_string() || e[key].get<std::string>().empty()) {
    throw core::ConfigError(where + ": " + key + " must be a non-empty string");
  }
  return e[key].get<std::string>();
}

}  // namespace

ligand_pca::PcaModel read_pathgennie_pca(const fs::path& pickle, const fs::path& structure,
                                         const std::string& ligand_selection,
                                         double around_distance,
                                         const core::PythonInterpreter& python) {
  const ligand_pca::FeatureAtoms atoms =
      ligand_pca::feature_atoms(structure, ligand_selection, around_distance, "ligand_selection");
  features::PythonWorker worker(python, pickle.filename().string());
  json reply;
  if (auto problem =
          worker.call({{"mode", "pca_pickle"}, {"file", fs::absolute(pickle).string()}}, &reply)) {
    throw core::InputError(*problem);
  }
  ligand_pca::PcaModel m;
  m.n_atoms = atoms.n_atoms;
  m.ca_indices = atoms.ca;
  m.ligand_indices = atoms.ligand_heavy;
  m.mean = reply.at("mean").get<std::vector<double>>();
  m.components = reply.at("components").get<std::vector<std::vector<double>>>();
  m.explained_variance = reply.at("explained_variance").get<std::vector<double>>();
  m.explained_variance_ratio = reply.at("explained_variance_ratio").get<std::vector<double>>();
  m.n_samples = reply.at("n_samples").get<double>();
  const std::size_t expected = atoms.ca.size() * atoms.ligand_heavy.size();
  if (m.mean.size() != expected) {
    throw core::InputError(fmt::format(
        "{}: the model has {} features, but {} gives {} pocket CA atoms (within {} Å of "
        "'{}') x {} ligand heavy atoms = {}; give the structure, ligand and radius that "
        "pcagen.py was run with (PathGennie: --structure_file, --ligand_name, "
        "--selection_radius)",
        pickle.string(), m.mean.size(), structure.string(), atoms.ca.size(), around_distance,
        ligand_selection, atoms.ligand_heavy.size(), expected));
  }
  m.provenance = {{"pickle", fs::absolute(pickle).string()},
                  {"estimator", reply.value("estimator", std::string())},
                  {"structure", fs::absolute(structure).string()},
                  {"ligand_selection", ligand_selection},
                  {"around_distance", around_distance}};
  return m;
}

bool has_pca_model(const json& cvs) {
  if (!cvs.is_array()) return false;
  for (const auto& e : cvs) {
    if (e.is_object() && e.value("kind", "") == "pca_model") return true;
  }
  return false;
}

std::unique_ptr<features::Projection> make_pca_model_projection(
    const json& cvs, int n_atoms, const fs::path& config_dir,
    const core::PythonInterpreter& python) {
  if (cvs.size() != 1) {
    throw core::ConfigError(
        "cvs: a pca_model entry is the whole CV space of a swarm (PathGennie's unbinding CV); "
        "give it as the only cvs entry");
  }
  const json& e = cvs[0];
  const std::string name = e.value("name", "pca");
  const std::string where = "cvs[0] (" + name + ", kind pca_model)";
  if (!e.contains("file") || !e["file"].is_string()) {
    throw core::ConfigError(where + ": file: the model written by `trails pca` is required");
  }
  fs::path file = e["file"].get<std::string>();
  if (file.is_relative()) file = config_dir / file;
  const bool pickle = file.extension() == ".pkl";
  for (const auto& [key, value] : e.items()) {
    const bool pickle_key =
        key == "structure" || key == "ligand_selection" || key == "around_distance";
    if (key != "name" && key != "kind" && key != "file" && key != "components" &&
        !(pickle && pickle_key)) {
      throw core::ConfigError(
          where + ": unknown key '" + key +
          (pickle ? "'; a pca_model entry of a .pkl has name, kind, file, components, "
                    "structure, ligand_selection and around_distance"
                  : "'; a pca_model entry has name, kind, file and components (structure, "
                    "ligand_selection and around_distance go with PathGennie's .pkl)"));
    }
  }
  ligand_pca::PcaModel model;
  try {
    if (pickle) {
      if (!e.contains("structure") || !e["structure"].is_string()) {
        throw core::ConfigError(where +
                                ": structure: a .pkl holds no atom indices; give the "
                                "structure pcagen.py read (PathGennie's structure_file)");
      }
      fs::path structure = e["structure"].get<std::string>();
      if (structure.is_relative()) structure = config_dir / structure;
      const json radius = e.value("around_distance", json(20.0));
      if (!radius.is_number() || !(radius.get<double>() > 0)) {
        throw core::ConfigError(where + ": around_distance must be a number > 0 (Å)");
      }
      model =
          read_pathgennie_pca(file, structure, text_or(e, "ligand_selection", "resname LIG", where),
                              radius.get<double>(), python);
    } else {
      model = ligand_pca::read_pca_model(file);
    }
  } catch (const core::ConfigError&) {
    throw;
  } catch (const core::Error& err) {
    throw core::ConfigError(where + ": " + err.what());
  }
  // PathGennie uses the first 4 components (fewer when the model has fewer: its slice [:4]).
  const json k = e.value("components", json(std::min(4, model.n_components())));
  if (!k.is_number_integer() || k.get<int>() < 1 || k.get<int>() > model.n_components()) {
    throw core::ConfigError(
        fmt::format("{}: components must be an integer from 1 to {} (the "
                    "model's components), got {}",
                    where, model.n_components(), k.dump()));
  }
  if (model.n_atoms != n_atoms) {
    throw core::ConfigError(fmt::format(
        "{}: {} was built for {} atoms but the system has {}; build it with `trails pca` on "
        "the run's own structure",
        where, file.string(), model.n_atoms, n_atoms));
  }
  return std::make_unique<PcaModelProjection>(std::move(model), k.get<int>(), name, n_atoms);
}

}  // namespace trails::swarm
