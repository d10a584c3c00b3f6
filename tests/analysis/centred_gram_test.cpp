// centred_gram: both kernels against a scalar loop in the documented order, bit for bit, over
// widths around the tile and padding sizes, chunk boundaries, strided rows and both sources.
#include "trails/analysis/centred_gram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "trails/core/error.h"

namespace trails::analysis {
namespace {

// The order centred_gram documents, one element at a time.
void scalar_gram(const CentredRows& in, Eigen::MatrixXd& g, Eigen::VectorXd& s) {
  g = Eigen::MatrixXd::Zero(in.d, in.d);
  s = Eigen::VectorXd::Zero(in.d);
  std::vector<double> r(in.d);
  for (std::int64_t k = 0; k < in.rows; ++k) {
    for (int j = 0; j < in.d; ++j) {
      const double x = in.x[k * in.stride + j];
      r[j] = in.y ? (x + in.y[k * in.stride + j]) - in.c[j] : x - in.c[j];
      s(j) += r[j];
    }
    for (int i = 0; i < in.d; ++i)
      for (int j = 0; j < in.d; ++j) {
        const volatile double p = r[i] * r[j];  // rounded on its own, as the kernels do
        g(i, j) += p;
      }
  }
}

bool same_gram_bits(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::equal(a.data(), a.data() + a.size(), b.data(),
                    [](double u, double v) { return std::memcmp(&u, &v, sizeof u) == 0; });
}

TEST(CentredGram, KernelsEqualTheScalarOrderBitForBit) {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> n(3.0, 2.0);
  std::vector<GramKernel> kernels{GramKernel::Portable};
  if (gram_kernel_available(GramKernel::Avx2)) kernels.push_back(GramKernel::Avx2);
  for (const int d : {1, 3, 4, 7, 8, 9, 50}) {
    for (const std::int64_t rows : {0, 1, 63, 64, 65, 300}) {
      const std::int64_t stride = d + 3, lag = 5;
      std::vector<double> x((rows + lag) * stride), c(d);
      for (double& v : x) v = n(rng);
      for (double& v : c) v = n(rng);
      for (const bool pair : {false, true}) {
        const CentredRows in{x.data(), pair ? x.data() + lag * stride : nullptr, stride, rows, d,
                             c.data()};
        Eigen::MatrixXd g_ref;
        Eigen::VectorXd s_ref;
        scalar_gram(in, g_ref, s_ref);
        for (const auto k : kernels) {
          Eigen::MatrixXd g;
          Eigen::VectorXd s;
          centred_gram(in, g, &s, k);
          EXPECT_TRUE(same_gram_bits(g, g_ref))
              << "d " << d << " rows " << rows << " kernel " << static_cast<int>(k);
          EXPECT_TRUE(same_gram_bits(s, s_ref)) << "d " << d << " rows " << rows;
          EXPECT_TRUE(same_gram_bits(g, g.transpose()));
        }
      }
    }
  }
}

TEST(CentredGram, BadShapeIsAnInputError) {
  const std::vector<double> x(8, 1.0), c(4, 0.0);
  Eigen::MatrixXd g;
  EXPECT_THROW(centred_gram({x.data(), nullptr, 2, 2, 4, c.data()}, g, nullptr), core::InputError);
  EXPECT_THROW(centred_gram({x.data(), nullptr, 4, 2, 0, c.data()}, g, nullptr), core::InputError);
}

}  // namespace
}  // namespace trails::analysis
