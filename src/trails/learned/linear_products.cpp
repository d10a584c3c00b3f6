// Built with -ffp-contract=off (CMakeLists.txt): a fused multiply-add would round differently
// from the reference BLAS, whose order and rounding these products reproduce (linear_products.h).
#include "trails/learned/linear_products.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "trails/core/thread_pool.h"

namespace trails::learned::detail {
namespace {

using Lanes = float __attribute__((vector_size(32)));  // 8 floats; two SSE or one AVX register
constexpr int kLanes = 8;
constexpr int kDepthBlock = 256;  // summed indices per pass: a 256 × 16 panel of B stays in L1
constexpr int kRowChunk = 32;     // output rows per thread-pool chunk

// C(r, c) = Σ_p A(r, p) B(p, c) with A(r, p) = a[r·a_row + p·a_sum], B(p, c) = b[p·ld_b + c],
// C(r, c) = c[r·ld_c + c]; C holds the partial sums between depth blocks (in float, as the
// reference BLAS keeps them), so blocking changes no rounding.
struct Product {
  const float* a;
  long a_row, a_sum;
  const float* b;
  long ld_b;
  float* c;
  long ld_c;
  int rows, cols, depth;
};

// R rows × V·8 columns of C, summed over p in [p0, p1).
template <int R, int V>
[[gnu::always_inline]] inline void tile(const Product& m, int r, int col, int p0, int p1) {
  Lanes acc[R][V];
  for (int i = 0; i < R; ++i)
    for (int v = 0; v < V; ++v)
      std::memcpy(&acc[i][v], m.c + (r + i) * m.ld_c + col + v * kLanes, sizeof(Lanes));
  for (int p = p0; p < p1; ++p) {
    Lanes bv[V];
    for (int v = 0; v < V; ++v)
      std::memcpy(&bv[v], m.b + p * m.ld_b + col + v * kLanes, sizeof(Lanes));
    for (int i = 0; i < R; ++i) {
      const float a = m.a[(r + i) * m.a_row + p * m.a_sum];
      for (int v = 0; v < V; ++v) acc[i][v] += a * bv[v];
    }
  }
  for (int i = 0; i < R; ++i)
    for (int v = 0; v < V; ++v)
      std::memcpy(m.c + (r + i) * m.ld_c + col + v * kLanes, &acc[i][v], sizeof(Lanes));
}

// R rows × one column, scalar (the columns past the last multiple of 8).
template <int R>
[[gnu::always_inline]] inline void column(const Product& m, int r, int col, int p0, int p1) {
  float acc[R];
  for (int i = 0; i < R; ++i) acc[i] = m.c[(r + i) * m.ld_c + col];
  for (int p = p0; p < p1; ++p) {
    const float bv = m.b[p * m.ld_b + col];
    for (int i = 0; i < R; ++i) acc[i] += m.a[(r + i) * m.a_row + p * m.a_sum] * bv;
  }
  for (int i = 0; i < R; ++i) m.c[(r + i) * m.ld_c + col] = acc[i];
}

template <int V>
[[gnu::always_inline]] inline void tiles(const Product& m, int r0, int r1, int col, int p0,
                                         int p1) {
  int r = r0;
  for (; r + 4 <= r1; r += 4) tile<4, V>(m, r, col, p0, p1);
  for (; r < r1; ++r) tile<1, V>(m, r, col, p0, p1);
}

// Rows [r0, r1) of C, every column, summed over p in [p0, p1). Cloned for AVX2 (without FMA)
// and the x86-64 baseline; both give the same bits.
__attribute__((target_clones("avx2", "default"))) void accumulate(const Product& m, int r0, int r1,
                                                                  int p0, int p1) {
  int col = 0;
  for (; col + 2 * kLanes <= m.cols; col += 2 * kLanes) tiles<2>(m, r0, r1, col, p0, p1);
  for (; col + kLanes <= m.cols; col += kLanes) tiles<1>(m, r0, r1, col, p0, p1);
  for (; col < m.cols; ++col) {
    int r = r0;
    for (; r + 4 <= r1; r += 4) column<4>(m, r, col, p0, p1);
    for (; r < r1; ++r) column<1>(m, r, col, p0, p1);
  }
}

void multiply(const Product& m, int threads) {
  core::default_pool().parallel_for(
      static_cast<std::size_t>(m.rows), kRowChunk,
      [&m](std::size_t begin, std::size_t end) {
        const int r0 = static_cast<int>(begin), r1 = static_cast<int>(end);
        std::fill(m.c + r0 * m.ld_c, m.c + r1 * m.ld_c, 0.0f);
        for (int p0 = 0; p0 < m.depth; p0 += kDepthBlock)
          accumulate(m, r0, r1, p0, std::min(m.depth, p0 + kDepthBlock));
      },
      threads);
}

void transpose(const float* from, int rows, int cols, float* to) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c)
      to[c * static_cast<long>(rows) + r] = from[r * static_cast<long>(cols) + c];
}

}  // namespace

void linear_forward(const float* x, const float* w, const float* b, int n, int in, int out,
                    float* y, int threads) {
  std::vector<float> wt(static_cast<std::size_t>(in) * out);  // in × out: rows of B contiguous
  transpose(w, out, in, wt.data());
  multiply({x, in, 1, wt.data(), out, y, out, n, out, in}, threads);
  // The reference BLAS adds the bias (C on entry, β = 1) after the dot product.
  for (long j = 0; j < n; ++j)
    for (int i = 0; i < out; ++i) y[j * out + i] += b[i];
}

void linear_input_grad(const float* g, const float* w, int n, int in, int out, float* gx,
                       int threads) {
  multiply({g, out, 1, w, in, gx, in, n, in, out}, threads);
}

void linear_weight_grad(const float* g, const float* x, int n, int in, int out, float* gw,
                        int threads) {
  if (in >= out) {  // gw directly: vector lanes across the in columns
    multiply({g, 1, out, x, in, gw, in, out, in, n}, threads);
    return;
  }
  // gwᵀ (in × out), lanes across the wider out, then transposed: the same sums.
  std::vector<float> gwt(static_cast<std::size_t>(in) * out);
  multiply({x, 1, in, g, out, gwt.data(), out, in, out, n}, threads);
  transpose(gwt.data(), in, out, gw);
}

}  // namespace trails::learned::detail
