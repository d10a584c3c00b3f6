#include "trails/ligand_pca/pca_model.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "trails/core/error.h"
#include "trails/core/fs.h"

namespace trails::ligand_pca {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kFormat = "trails-ligand-pca";
constexpr int kVersion = 1;

// The minimum image of d (nm) in a box with rows a, b, c (reduced form, as OpenMM and GROMACS
// keep it): subtract c, then b, then a.
void minimum_image(double d[3], std::span<const double> box) {
  for (int row = 2; row >= 0; --row) {
    const double* v = &box[3 * static_cast<std::size_t>(row)];
    const double n = std::round(d[row] / v[row]);
    for (int k = 0; k < 3; ++k) d[k] -= n * v[k];
  }
}

}  // namespace

void append_ligand_features(std::span<const int> ca, std::span<const int> ligand,
                            std::span<const double> x, std::span<const double> box,
                            std::vector<double>& out) {
  for (int i : ca) {
    for (int j : ligand) {
      const auto xi = 3 * static_cast<std::size_t>(i), xj = 3 * static_cast<std::size_t>(j);
      double d[3];
      for (std::size_t k = 0; k < 3; ++k) d[k] = x[xj + k] - x[xi + k];
      if (box.size() == 9) minimum_image(d, box);
      out.push_back(10.0 * std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
    }
  }
}

std::vector<double> ligand_features(const PcaModel& model, std::span<const double> positions_nm,
                                    std::span<const double> box) {
  std::vector<double> out;
  out.reserve(model.ca_indices.size() * model.ligand_indices.size());
  append_ligand_features(model.ca_indices, model.ligand_indices, positions_nm, box, out);
  return out;
}

std::vector<double> project_features(const PcaModel& model, std::span<const double> f,
                                     int n_components) {
  std::vector<double> z(static_cast<std::size_t>(n_components), 0.0);
  for (int k = 0; k < n_components; ++k) {
    const auto& c = model.components[static_cast<std::size_t>(k)];
    double s = 0.0;
    for (std::size_t i = 0; i < f.size(); ++i) s += (f[i] - model.mean[i]) * c[i];
    z[static_cast<std::size_t>(k)] = s;
  }
  return z;
}

void write_pca_model(const fs::path& file, const PcaModel& m) {
  json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["n_atoms"] = m.n_atoms;
  j["ca_indices"] = m.ca_indices;
  j["ligand_indices"] = m.ligand_indices;
  j["n_samples"] = m.n_samples;
  j["mean"] = m.mean;
  j["components"] = m.components;
  j["explained_variance"] = m.explained_variance;
  j["explained_variance_ratio"] = m.explained_variance_ratio;
  j["provenance"] = m.provenance;
  // nlohmann writes doubles with 17 significant digits: they read back exactly.
  core::write_file_atomic(file, j.dump(1) + "\n");
}

PcaModel read_pca_model(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw core::InputError(file.string() + ": cannot read the PCA model (no such file?)");
  std::stringstream text;
  text << in.rdbuf();
  const auto bad = [&](const std::string& what) {
    return core::InputError(file.string() + ": not a Trails ligand PCA model (" + what +
                            "); write one with `trails pca` (docs/swarm.md)");
  };
  json j;
  try {
    j = json::parse(text.str());
  } catch (const json::exception& e) {
    throw bad(std::string("not JSON: ") + e.what());
  }
  if (!j.is_object() || j.value("format", "") != kFormat)
    throw bad("format is not " + std::string(kFormat));
  if (j.value("version", 0) != kVersion) {
    throw bad("version " + j.value("version", json()).dump() + ", this Trails reads version 1");
  }
  PcaModel m;
  try {
    m.n_atoms = j.at("n_atoms").get<int>();
    m.ca_indices = j.at("ca_indices").get<std::vector<int>>();
    m.ligand_indices = j.at("ligand_indices").get<std::vector<int>>();
    m.n_samples = j.at("n_samples").get<double>();
    m.mean = j.at("mean").get<std::vector<double>>();
    m.components = j.at("components").get<std::vector<std::vector<double>>>();
    m.explained_variance = j.at("explained_variance").get<std::vector<double>>();
    m.explained_variance_ratio = j.at("explained_variance_ratio").get<std::vector<double>>();
    m.provenance = j.value("provenance", json::object());
  } catch (const json::exception& e) {
    throw bad(e.what());
  }
  const std::size_t f = m.ca_indices.size() * m.ligand_indices.size();
  if (f == 0 || m.mean.size() != f) {
    throw bad("mean has " + std::to_string(m.mean.size()) + " values, the indices give " +
              std::to_string(f) + " features");
  }
  for (const auto& c : m.components) {
    if (c.size() != f) throw bad("a component's length differs from the feature count");
  }
  if (m.components.empty() || m.explained_variance.size() != m.components.size()) {
    throw bad("components and explained_variance disagree");
  }
  return m;
}

}  // namespace trails::ligand_pca
