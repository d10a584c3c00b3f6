// The ligand PCA model (docs/file-formats.md, "Ligand PCA model"): known-answer features with
// and without a box, the projection, a byte-stable round trip, and the reader's refusals; the
// pose generator's rules and its determinism.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/files.h"
#include "trails/core/error.h"
#include "trails/ligand_pca/build.h"
#include "trails/ligand_pca/pca_model.h"
#include "trails/ligand_pca/pose_generator.h"

namespace trails::ligand_pca {
namespace {

namespace fs = std::filesystem;

PcaModel small_model() {
  PcaModel m;
  m.n_atoms = 4;
  m.ca_indices = {0, 1};
  m.ligand_indices = {2, 3};
  m.mean = {1.0, 2.0, 3.0, 4.0};
  m.components = {{1.0, 0.0, 0.0, 0.0}, {0.0, 0.6, 0.8, 0.0}};
  m.explained_variance = {2.0, 1.0};
  m.explained_variance_ratio = {0.5, 0.25};
  m.n_samples = 10;
  return m;
}

using test_support::read_text;

TEST(LigandPcaModel, FeaturesAreCaMajorDistancesInAngstrom) {
  const PcaModel m = small_model();
  // CA0 at 0, CA1 at (1,0,0) nm; ligand atoms at (0,0.3,0) and (0,0,0.4) nm.
  const std::vector<double> x = {0, 0, 0, 1, 0, 0, 0, 0.3, 0, 0, 0, 0.4};
  const auto f = ligand_features(m, x);
  ASSERT_EQ(f.size(), 4U);
  EXPECT_DOUBLE_EQ(f[0], 3.0);                     // CA0 - L0
  EXPECT_DOUBLE_EQ(f[1], 4.0);                     // CA0 - L1
  EXPECT_DOUBLE_EQ(f[2], 10.0 * std::sqrt(1.09));  // CA1 - L0
  EXPECT_DOUBLE_EQ(f[3], 10.0 * std::sqrt(1.16));  // CA1 - L1
  // In a 1.2 nm cube CA1 (x = 1) is 0.2 nm from the origin's images.
  const std::vector<double> box = {1.2, 0, 0, 0, 1.2, 0, 0, 0, 1.2};
  const auto g = ligand_features(m, x, box);
  EXPECT_NEAR(g[2], 10.0 * std::sqrt(0.04 + 0.09), 1e-12);
  EXPECT_NEAR(g[3], 10.0 * std::sqrt(0.04 + 0.16), 1e-12);
  const auto z = project_features(m, f, 2);
  EXPECT_DOUBLE_EQ(z[0], 2.0);
  EXPECT_NEAR(z[1], 0.6 * 2.0 + 0.8 * (10.0 * std::sqrt(1.09) - 3.0), 1e-12);
}

TEST(LigandPcaModel, RoundTripsExactlyAndRefusesOtherFiles) {
  const fs::path dir = test_support::fresh_dir();
  PcaModel m = small_model();
  m.mean[0] = 0.1 + 0.2;  // not a short decimal
  write_pca_model(dir / "a.json", m);
  const PcaModel back = read_pca_model(dir / "a.json");
  EXPECT_EQ(back.mean, m.mean);
  EXPECT_EQ(back.components, m.components);
  write_pca_model(dir / "b.json", back);
  EXPECT_EQ(read_text(dir / "a.json"), read_text(dir / "b.json"));
  std::ofstream(dir / "bad.json") << R"({"format": "trails-ligand-pca", "version": 2})";
  EXPECT_THROW((void)read_pca_model(dir / "bad.json"), core::InputError);
  std::ofstream(dir / "short.json") << R"({"format": "trails-ligand-pca", "version": 1,
    "n_atoms": 4, "ca_indices": [0], "ligand_indices": [2, 3], "n_samples": 2, "mean": [1],
    "components": [[1]], "explained_variance": [1], "explained_variance_ratio": [1]})";
  try {
    (void)read_pca_model(dir / "short.json");
    ADD_FAILURE() << "a model with too few means was read";
  } catch (const core::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mean has 1 values, the indices give 2 features"),
              std::string::npos)
        << e.what();
  }
}

TEST(LigandPcaModel, PcaOfKnownRows) {
  // Points on a line y = 2x: one component along (1, 2)/√5 with all the variance.
  const std::vector<double> rows = {0, 0, 1, 2, 2, 4, 3, 6};
  PcaModel m;
  const auto ratios = fit_feature_pca(rows, 4, 2, 10, m);
  ASSERT_EQ(m.n_components(), 2);
  EXPECT_NEAR(m.mean[0], 1.5, 1e-14);
  EXPECT_NEAR(m.mean[1], 3.0, 1e-14);
  EXPECT_NEAR(m.components[0][0], 1 / std::sqrt(5.0), 1e-12);
  EXPECT_NEAR(m.components[0][1], 2 / std::sqrt(5.0), 1e-12);
  EXPECT_NEAR(m.explained_variance[0], 5.0 * 5.0 / 3.0, 1e-12);  // Σ (t − 1.5)² · 5 / (n − 1)
  EXPECT_NEAR(ratios[0], 1.0, 1e-12);
}

TEST(LigandPoses, ObeyTheRulesAndDependOnlyOnTheSeed) {
  const std::vector<double> protein = {0, 0, 0, 5, 0, 0, 0, 5, 0};
  const std::vector<double> ligand = {2, 2, 4, 3, 2, 4};
  PoseOptions o;
  o.n_conformations = 30;
  o.max_radius = 6;
  o.clash = 1.5;
  o.max_distance = 5;
  o.rmsd_threshold = 1.0;
  o.seed = 11;
  const Poses a = generate_poses(protein, ligand, o);
  const Poses b = generate_poses(protein, ligand, o);
  EXPECT_EQ(a.poses, b.poses);
  ASSERT_EQ(a.poses.size(), 30U);
  for (std::size_t i = 0; i < a.poses.size(); ++i) {
    const auto& p = a.poses[i];
    double nearest = 1e9;
    for (std::size_t l = 0; l < 2; ++l) {
      for (std::size_t q = 0; q < 3; ++q) {
        double d = 0;
        for (int k = 0; k < 3; ++k) d += std::pow(p[3 * l + k] - protein[3 * q + k], 2);
        nearest = std::min(nearest, std::sqrt(d));
      }
    }
    EXPECT_GE(nearest, 1.5);
    EXPECT_LE(nearest, 5.0);
    // Rigid: the bond length is kept.
    EXPECT_NEAR(std::hypot(p[3] - p[0], p[4] - p[1], p[5] - p[2]), 1.0, 1e-12);
    for (std::size_t j = 0; j < i; ++j) {
      double sq = 0;
      for (std::size_t k = 0; k < 6; ++k) sq += std::pow(p[k] - a.poses[j][k], 2);
      EXPECT_GE(std::sqrt(sq / 2), 1.0);
    }
  }
  o.seed = 12;
  EXPECT_NE(generate_poses(protein, ligand, o).poses, a.poses);
}

}  // namespace
}  // namespace trails::ligand_pca
