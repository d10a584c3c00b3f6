// Access to the deeptime known-answer files (tests/data/deeptime, deeptime's outputs) and to
// the inputs that the ctest fixture deeptime.inputs regenerates into the build tree
// (generate_inputs.py, sha256-checked against dataset_manifest.json). docs/analysis.md.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <nlohmann/json.hpp>

#include "trails/core/npy.h"

namespace trails::deeptime_test {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

inline std::filesystem::path reference_dir() {
  return std::filesystem::path(TRAILS_TEST_DATA) / "deeptime";
}
inline std::filesystem::path input_dir() { return TRAILS_DEEPTIME_INPUTS; }

// A float64 .npy as a row-major matrix (1-D arrays: one column).
inline RowMatrix read_matrix(const std::filesystem::path& file) {
  const core::NpyArray a = core::read_npy(file);
  EXPECT_EQ(a.descr, "<f8") << file;
  const Eigen::Index rows = a.shape.empty() ? 1 : a.shape[0];
  const Eigen::Index cols = a.n_elements() / std::max<Eigen::Index>(rows, 1);
  RowMatrix m(rows, cols);
  for (Eigen::Index i = 0; i < a.n_elements(); ++i) m.data()[i] = a.float_at(i);
  return m;
}
inline RowMatrix reference(const std::string& name) {
  return read_matrix(reference_dir() / (name + ".npy"));
}

inline std::vector<std::int64_t> read_ints(const std::filesystem::path& file) {
  const core::NpyArray a = core::read_npy(file);
  std::vector<std::int64_t> v(static_cast<std::size_t>(a.n_elements()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = a.int_at(static_cast<std::int64_t>(i));
  return v;
}

// dtraj.npy (10 x 100000 int32) as one state sequence per trajectory.
inline std::vector<std::vector<int>> read_dtrajs(const std::filesystem::path& file) {
  const core::NpyArray a = core::read_npy(file);
  const auto rows = static_cast<std::size_t>(a.shape.size() == 2 ? a.shape[0] : 1);
  const auto cols = static_cast<std::size_t>(a.n_elements()) / rows;
  std::vector<std::vector<int>> d(rows, std::vector<int>(cols));
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < cols; ++c)
      d[r][c] = static_cast<int>(a.int_at(static_cast<std::int64_t>(r * cols + c)));
  return d;
}

inline nlohmann::json reference_facts() {
  std::ifstream in(reference_dir() / "reference.json");
  return nlohmann::json::parse(in);
}

inline double max_abs_diff(const Eigen::Ref<const RowMatrix>& a,
                           const Eigen::Ref<const RowMatrix>& b) {
  EXPECT_EQ(a.rows(), b.rows());
  EXPECT_EQ(a.cols(), b.cols());
  if (a.rows() != b.rows() || a.cols() != b.cols()) return 1e300;
  return (a - b).cwiseAbs().maxCoeff();
}

inline double max_rel_diff(const Eigen::Ref<const RowMatrix>& a,
                           const Eigen::Ref<const RowMatrix>& b) {
  EXPECT_EQ(a.size(), b.size());
  if (a.rows() != b.rows() || a.cols() != b.cols()) return 1e300;
  return ((a - b).cwiseAbs().array() / b.cwiseAbs().array()).maxCoeff();
}

}  // namespace trails::deeptime_test
