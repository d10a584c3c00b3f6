// Centred Gram sums: rows staged in chunks (centred, zero-padded to a multiple of 8 columns),
// then tiles of the lower triangle kept in vector registers while the chunk's rows are added in
// order. The tile shape changes only which elements share registers, never an element's order,
// so every kernel gives the same bits. This file is built with -ffp-contract=off (CMakeLists).
#include "trails/analysis/centred_gram.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "trails/core/error.h"

namespace trails::analysis {

namespace {

// GCC/Clang vector of 4 doubles: two SSE2 registers in the portable kernel, one AVX2 register in
// the other; lane-wise arithmetic either way.
using V4 = double __attribute__((vector_size(32)));

constexpr int kChunkRows = 64;  // staged rows: 64 x d doubles stay in L1/L2 between tiles
constexpr int kPad = 8;

// load4 is always inlined, so no V4 crosses a call in the portable kernel: GCC's note that such a
// return would change the ABI without AVX does not apply.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
[[gnu::always_inline]] inline V4 load4(const double* p) {
  V4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

[[gnu::always_inline]] inline void store4(double* p, V4 v) { std::memcpy(p, &v, sizeof v); }

// Adds rows [0, n) of the staged chunk r (row width dp) to the lower-triangle tiles of acc
// (dp x dp, row-major): TI output rows by 4 * TJ output columns per tile.
template <int TI, int TJ>
[[gnu::always_inline]] inline void add_chunk(const double* r, int n, int d, int dp, double* acc) {
  for (int i0 = 0; i0 < d; i0 += TI) {
    for (int j0 = 0; j0 < std::min(d, i0 + TI); j0 += 4 * TJ) {
      V4 a[TI][TJ];  // unrolled (the pragmas), so the tile lives in registers
#pragma GCC unroll 8
      for (int ii = 0; ii < TI; ++ii)
#pragma GCC unroll 8
        for (int jj = 0; jj < TJ; ++jj) a[ii][jj] = load4(acc + (i0 + ii) * dp + j0 + 4 * jj);
      for (int k = 0; k < n; ++k) {
        const double* row = r + static_cast<std::ptrdiff_t>(k) * dp;
        V4 b[TJ];
#pragma GCC unroll 8
        for (int jj = 0; jj < TJ; ++jj) b[jj] = load4(row + j0 + 4 * jj);
#pragma GCC unroll 8
        for (int ii = 0; ii < TI; ++ii) {
          const double v = row[i0 + ii];
          const V4 ri = {v, v, v, v};
#pragma GCC unroll 8
          for (int jj = 0; jj < TJ; ++jj) a[ii][jj] += ri * b[jj];
        }
      }
#pragma GCC unroll 8
      for (int ii = 0; ii < TI; ++ii)
#pragma GCC unroll 8
        for (int jj = 0; jj < TJ; ++jj) store4(acc + (i0 + ii) * dp + j0 + 4 * jj, a[ii][jj]);
    }
  }
}

template <int TI, int TJ>
[[gnu::always_inline]] inline void run(const CentredRows& in, double* buf, int dp, double* s_out) {
  double* acc = buf;          // dp x dp
  double* r = acc + dp * dp;  // kChunkRows x dp
  const int d = in.d;
  for (std::int64_t k0 = 0; k0 < in.rows; k0 += kChunkRows) {
    const int n = static_cast<int>(std::min<std::int64_t>(kChunkRows, in.rows - k0));
    for (int k = 0; k < n; ++k) {
      const double* x = in.x + (k0 + k) * in.stride;
      double* o = r + static_cast<std::ptrdiff_t>(k) * dp;
      if (in.y) {
        const double* y = in.y + (k0 + k) * in.stride;
        for (int j = 0; j < d; ++j) o[j] = (x[j] + y[j]) - in.c[j];
      } else {
        for (int j = 0; j < d; ++j) o[j] = x[j] - in.c[j];
      }
      if (s_out)
        for (int j = 0; j < d; ++j) s_out[j] += o[j];
    }
    add_chunk<TI, TJ>(r, n, d, dp, acc);
  }
}

void run_portable(const CentredRows& in, double* buf, int dp, double* s) {
  run<4, 1>(in, buf, dp, s);
}

[[gnu::target("avx2")]] void run_avx2(const CentredRows& in, double* buf, int dp, double* s) {
  run<4, 2>(in, buf, dp, s);
}

}  // namespace

bool gram_kernel_available(GramKernel k) {
  if (k == GramKernel::Portable) return true;
  static const bool avx2 = __builtin_cpu_supports("avx2") != 0;
  return avx2;
}

GramKernel fastest_gram_kernel() {
  return gram_kernel_available(GramKernel::Avx2) ? GramKernel::Avx2 : GramKernel::Portable;
}

void centred_gram(const CentredRows& in, Eigen::MatrixXd& g, Eigen::VectorXd* s,
                  GramKernel kernel) {
  if (!gram_kernel_available(kernel))
    throw core::InputError("centred_gram: the AVX2 kernel was asked for on a CPU without AVX2");
  if (in.d < 1 || in.rows < 0 || (in.rows > 0 && in.stride < in.d))
    throw core::InputError("centred_gram: expected d >= 1, rows >= 0 and stride >= d, got d " +
                           std::to_string(in.d) + ", " + std::to_string(in.rows) +
                           " rows, stride " + std::to_string(in.stride));
  const int d = in.d;
  const int dp = (d + kPad - 1) / kPad * kPad;
  // Zero: the accumulators, the padding columns of the staged rows, and s.
  std::vector<double> buf(static_cast<std::size_t>(dp) * (dp + kChunkRows) + dp, 0.0);
  double* s_acc = s ? buf.data() + static_cast<std::size_t>(dp) * (dp + kChunkRows) : nullptr;
  if (kernel == GramKernel::Avx2)
    run_avx2(in, buf.data(), dp, s_acc);
  else
    run_portable(in, buf.data(), dp, s_acc);
  g.resize(d, d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j <= i; ++j) g(i, j) = g(j, i) = buf[static_cast<std::size_t>(i) * dp + j];
  if (s) *s = Eigen::Map<const Eigen::VectorXd>(s_acc, d);
}

}  // namespace trails::analysis
