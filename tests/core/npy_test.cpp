// core::read_npy: the container parser shared by `trails msm` and system.project_file. Files
// are built byte by byte here (numpy's format: magic, version, header length, dict, data).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>

#include "trails/core/error.h"
#include "trails/core/npy.h"

namespace trails::core {
namespace {

namespace fs = std::filesystem;

fs::path write_npy(const std::string& name, const std::string& dict, const std::string& data,
                   int major = 1) {
  const fs::path path = fs::path(::testing::TempDir()) / name;
  std::string header = dict;
  const std::size_t prefix = 8 + (major == 1 ? 2 : 4);
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += static_cast<char>(major);
  bytes += '\0';
  const auto n = static_cast<std::uint32_t>(header.size());
  bytes += static_cast<char>(n & 0xff);
  bytes += static_cast<char>((n >> 8) & 0xff);
  if (major != 1) {
    bytes += static_cast<char>((n >> 16) & 0xff);
    bytes += static_cast<char>((n >> 24) & 0xff);
  }
  std::ofstream(path, std::ios::binary) << bytes << header << data;
  return path;
}

template <typename T>
std::string raw(std::initializer_list<T> values) {
  std::string s;
  for (T v : values) s.append(reinterpret_cast<const char*>(&v), sizeof v);  // little-endian host
  return s;
}

TEST(Npy, ReadsATwoDimensionalFloat64Array) {
  const auto p = write_npy("f8.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
                           raw<double>({1.5, -2.0, 3.25, 0.0, 1e-300, -7.0}));
  const NpyArray a = read_npy(p);
  EXPECT_EQ(a.descr, "<f8");
  EXPECT_EQ(a.kind, 'f');
  EXPECT_EQ(a.item_size, 8);
  EXPECT_EQ(a.shape, (std::vector<std::int64_t>{2, 3}));
  ASSERT_EQ(a.n_elements(), 6);
  EXPECT_EQ(a.float_at(0), 1.5);
  EXPECT_EQ(a.float_at(4), 1e-300);
  EXPECT_EQ(a.float_at(5), -7.0);
}

TEST(Npy, Float32SignedIntegersAndVersion2Headers) {
  const auto f4 =
      read_npy(write_npy("f4.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                         raw<float>({0.5F, -3.0F}), 2));
  EXPECT_EQ(f4.shape, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(f4.float_at(1), -3.0);
  const auto i2 =
      read_npy(write_npy("i2.npy", "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }",
                         raw<std::int16_t>({-1, 300, -32768})));
  EXPECT_EQ(i2.int_at(0), -1);
  EXPECT_EQ(i2.int_at(1), 300);
  EXPECT_EQ(i2.int_at(2), -32768);
  const auto scalar = read_npy(write_npy(
      "s.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", raw<double>({4.0})));
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.n_elements(), 1);
}

void expect_input_error(const fs::path& p, const std::string& text) {
  try {
    (void)read_npy(p);
    ADD_FAILURE() << p << ": no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(p.string() + ": " + text), std::string::npos) << e.what();
  }
}

TEST(Npy, ContainerProblemsNameTheFile) {
  expect_input_error(
      write_npy("short.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }",
                raw<double>({1.0, 2.0, 3.0})),
      "data shorter than the header's shape (2, 2)");
  expect_input_error(
      write_npy("fortran.npy", "{'descr': '<f8', 'fortran_order': True, 'shape': (1,), }",
                raw<double>({1.0})),
      "fortran_order must be False");
  expect_input_error(
      write_npy("be.npy", "{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }",
                raw<double>({1.0})),
      "big-endian dtype >f8");
  const fs::path junk = fs::path(::testing::TempDir()) / "junk.npy";
  std::ofstream(junk) << "NUMPY";
  expect_input_error(junk, "not an NPY file");
  expect_input_error(fs::path(::testing::TempDir()) / "absent.npy", "cannot open the file");
}

}  // namespace
}  // namespace trails::core
