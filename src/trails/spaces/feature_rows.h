// The feature rows of one iteration block of a learned space (SpaceStage), owned, and their
// MinMax range, made without a serial pass over the block (docs/performance.md, "TICA on the
// campaign's own path"): the built-in engine's coordinates are copied on the threads of
// core::default_pool() in the same pass that finds the range, into memory that the first write
// touches (large blocks on transparent huge pages where Linux offers them). The range equals
// the serial row-by-row std::min/std::max fold bit for bit (NaN and signed zeros included), for
// any thread count. Throws core::InternalError when the values are not whole rows.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace trails::spaces {

class FeatureRows {
 public:
  FeatureRows() = default;
  explicit FeatureRows(std::vector<double> values);  // computed features: kept, not copied

  std::size_t size() const { return copied_ ? copied_size_ : computed_.size(); }
  bool empty() const { return size() == 0; }
  const double* data() const { return copied_ ? copied_.get() : computed_.data(); }
  const double* begin() const { return data(); }
  const double* end() const { return data() + size(); }
  double operator[](std::size_t i) const { return data()[i]; }
  operator std::span<const double>() const { return {data(), size()}; }  // NOLINT: a view

  // The per-column min and max of n × d rows (empty for n = 0).
  struct Range {
    std::vector<double> lo, hi;
  };
  // A copy of `rows` (d values each) and their range, in one pass on at most n_threads threads
  // (0: all of the pool).
  static FeatureRows copy_with_range(std::span<const double> rows, int d, int n_threads,
                                     Range& range);

 private:
  struct Free {
    void operator()(double* p) const;
  };
  std::vector<double> computed_;
  std::unique_ptr<double, Free> copied_;  // set: the rows are a copy (copy_with_range)
  std::size_t copied_size_ = 0;
};

// The range of n × d rows on at most n_threads threads (0: all of the pool).
FeatureRows::Range feature_range(std::span<const double> rows, int d, int n_threads);

}  // namespace trails::spaces
