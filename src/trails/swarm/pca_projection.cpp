#include "trails/swarm/pca_projection.h"

#include <fmt/format.h>

#include "trails/core/error.h"
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

}  // namespace

bool has_pca_model(const json& cvs) {
  if (!cvs.is_array()) return false;
  for (const auto& e : cvs) {
    if (e.is_object() && e.value("kind", "") == "pca_model") return true;
  }
  return false;
}

std::unique_ptr<features::Projection> make_pca_model_projection(const json& cvs, int n_atoms,
                                                                const fs::path& config_dir) {
  if (cvs.size() != 1) {
    throw core::ConfigError(
        "cvs: a pca_model entry is the whole CV space of a swarm (PathGennie's unbinding CV); "
        "give it as the only cvs entry");
  }
  const json& e = cvs[0];
  const std::string name = e.value("name", "pca");
  const std::string where = "cvs[0] (" + name + ", kind pca_model)";
  for (const auto& [key, value] : e.items()) {
    if (key != "name" && key != "kind" && key != "file" && key != "components") {
      throw core::ConfigError(where + ": unknown key '" + key +
                              "'; a pca_model entry has name, kind, file and components");
    }
  }
  if (!e.contains("file") || !e["file"].is_string()) {
    throw core::ConfigError(where + ": file: the model written by `trails pca` is required");
  }
  fs::path file = e["file"].get<std::string>();
  if (file.is_relative()) file = config_dir / file;
  ligand_pca::PcaModel model;
  try {
    model = ligand_pca::read_pca_model(file);
  } catch (const core::Error& err) {
    throw core::ConfigError(where + ": " + err.what());
  }
  const json k = e.value("components", json(4));
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
