// Sums of outer products of centred feature rows in one fixed order, whatever the CPU
// (docs/analysis.md, "Reversible moments, fast path"): for rows r_k = x_k - c (one source) or
// r_k = (x_k + y_k) - c (two sources),
//   g_ij = (...((r_0i r_0j + r_1i r_1j) + r_2i r_2j) ...),   s_j = (...(r_0j + r_1j) ...),
// every product and every sum rounded on its own (no fused multiply-add), the rows in order.
// Vector lanes run across output elements only, so the portable (SSE2) kernel and the AVX2 one,
// chosen at run time, give the same bits; tests/analysis/centred_gram_test.cpp compares both
// with a scalar loop. Pure numerics, no allocation beyond one staging buffer per call.
#pragma once

#include <cstdint>

#include <Eigen/Core>

namespace trails::analysis {

enum class GramKernel { Portable, Avx2 };

bool gram_kernel_available(GramKernel k);  // Avx2: only where the CPU has it
GramKernel fastest_gram_kernel();          // chosen once per process

// `rows` rows of `d` doubles, row k at x + k * stride (and y + k * stride, y may be null); c has
// d entries. Overwrites g (d x d, both triangles: exactly symmetric) and, where s is not null,
// s (d). Throws core::InputError when kernel is not available on this CPU.
struct CentredRows {
  const double* x = nullptr;
  const double* y = nullptr;
  std::int64_t stride = 0;
  std::int64_t rows = 0;
  int d = 0;
  const double* c = nullptr;
};
void centred_gram(const CentredRows& rows, Eigen::MatrixXd& g, Eigen::VectorXd* s,
                  GramKernel kernel = fastest_gram_kernel());

}  // namespace trails::analysis
