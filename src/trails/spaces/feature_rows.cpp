// FeatureRows: the copy and the range in one parallel pass over fixed row chunks, folded in
// chunk order.
#include "trails/spaces/feature_rows.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "trails/core/error.h"
#include "trails/core/thread_pool.h"

namespace trails::spaces {
namespace {

constexpr std::size_t kChunkRows = 4096;         // rows per pool chunk
constexpr std::size_t kHugePage = 2u << 20;      // x86-64 and arm64 transparent huge pages
constexpr std::size_t kHugeMin = 4 * kHugePage;  // smaller blocks use ordinary pages

// Uninitialised memory for n doubles: the parallel copy makes the first touch, so the page
// faults are shared by the threads; large blocks ask for huge pages (about 500 times fewer
// faults; a kernel without them ignores the advice).
double* allocate(std::size_t n) {
  const std::size_t bytes = std::max<std::size_t>(n, 1) * sizeof(double);
  void* p = nullptr;
  if (bytes >= kHugeMin) {
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    p = std::aligned_alloc(kHugePage, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p) (void)madvise(p, rounded, MADV_HUGEPAGE);
#endif
  } else {
    p = std::malloc(bytes);
  }
  if (!p) throw std::bad_alloc();
  return static_cast<double*>(p);
}

// Rows [begin, end) folded into lo/hi with std::min/std::max (and copied to out, if given).
// Written as the serial fold is, so that each chunk's result is that fold's over its rows.
void fold(const double* rows, double* out, std::size_t d, std::size_t begin, std::size_t end,
          double* lo, double* hi) {
  for (std::size_t r = begin; r < end; ++r) {
    const double* x = rows + r * d;
    if (out) std::memcpy(out + r * d, x, d * sizeof(double));
    for (std::size_t i = 0; i < d; ++i) {
      lo[i] = std::min(lo[i], x[i]);
      hi[i] = std::max(hi[i], x[i]);
    }
  }
}

// The serial fold starts from row 0; every later chunk from (+inf, -inf), which std::min and
// std::max replace by any number and keep against a NaN, as the serial fold keeps its value
// against a NaN. Folding the chunks' results in chunk order then gives the serial fold's bits:
// a NaN only where row 0 holds one, and of equal values (0 and -0) the first one.
FeatureRows::Range range_pass(std::span<const double> rows, int d, int n_threads, double* out) {
  TRAILS_CHECK(d >= 1 && rows.size() % static_cast<std::size_t>(d) == 0,
               "feature values are whole rows");
  const auto dd = static_cast<std::size_t>(d);
  const std::size_t n = rows.size() / dd;
  FeatureRows::Range range;
  if (n == 0) return range;
  const std::size_t chunks = (n + kChunkRows - 1) / kChunkRows;
  std::vector<double> lo(chunks * dd, std::numeric_limits<double>::infinity());
  std::vector<double> hi(chunks * dd, -std::numeric_limits<double>::infinity());
  core::default_pool().parallel_for(
      chunks, 1,
      [&](std::size_t first, std::size_t last) {
        for (std::size_t c = first; c < last; ++c) {
          std::size_t begin = c * kChunkRows;
          const std::size_t end = std::min(n, begin + kChunkRows);
          if (c == 0) {
            std::copy_n(rows.data(), dd, lo.data());
            std::copy_n(rows.data(), dd, hi.data());
            if (out) std::memcpy(out, rows.data(), dd * sizeof(double));
            begin = 1;
          }
          fold(rows.data(), out, dd, begin, end, lo.data() + c * dd, hi.data() + c * dd);
        }
      },
      n_threads);
  range.lo.assign(lo.begin(), lo.begin() + static_cast<std::ptrdiff_t>(dd));
  range.hi.assign(hi.begin(), hi.begin() + static_cast<std::ptrdiff_t>(dd));
  for (std::size_t c = 1; c < chunks; ++c) {
    for (std::size_t i = 0; i < dd; ++i) {
      range.lo[i] = std::min(range.lo[i], lo[c * dd + i]);
      range.hi[i] = std::max(range.hi[i], hi[c * dd + i]);
    }
  }
  return range;
}

}  // namespace

void FeatureRows::Free::operator()(double* p) const { std::free(p); }

FeatureRows::FeatureRows(std::vector<double> values) : computed_(std::move(values)) {}

FeatureRows FeatureRows::copy_with_range(std::span<const double> rows, int d, int n_threads,
                                         Range& range) {
  FeatureRows f;
  f.copied_.reset(allocate(rows.size()));
  f.copied_size_ = rows.size();
  range = range_pass(rows, d, n_threads, f.copied_.get());
  return f;
}

FeatureRows::Range feature_range(std::span<const double> rows, int d, int n_threads) {
  return range_pass(rows, d, n_threads, nullptr);
}

}  // namespace trails::spaces
