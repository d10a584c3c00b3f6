// weighted_choice: Trails-MD's _weighted_choice on trails::core::Rng. Draw order is part of
// reproducibility: exactly n calls to rng.uniform(), one per returned row, in output order.
// Without replacement is sequential (draw by cumulative weight, zero the row, renormalise, draw
// again) as numpy's Generator.choice(replace=False, p=...) does; only the RNG differs.
#include <algorithm>
#include <cmath>
#include <limits>

#include "trails/core/error.h"
#include "trails/spawners/density_spawner.h"

namespace trails::spawners {
namespace {

// Sequential draws without replacement over sqrt-sized blocks of rows: a draw costs
// O(#blocks + block size) instead of O(rows), so choosing W of R bins is O(R + W·sqrt(R)).
// Every sum is recomputed from the current weights (never decremented), so nothing drifts and
// a zeroed row can never be drawn again.
class BlockedSampler {
 public:
  explicit BlockedSampler(std::vector<double>& w)
      : w_(w),
        size_(std::max<std::size_t>(
            1, static_cast<std::size_t>(std::sqrt(static_cast<double>(w.size()))))) {
    sums_.resize((w_.size() + size_ - 1) / size_);
    for (std::size_t j = 0; j < sums_.size(); ++j) resum(j);
  }

  // Row for a uniform u in [0, 1), scaled by the remaining total; the row is then removed.
  std::int64_t draw(double u) {
    double total = 0.0;
    for (double s : sums_) total += s;
    const double x = u * total;
    double acc = 0.0;
    std::size_t block = sums_.size();
    bool inside = false;
    for (std::size_t j = 0; j < sums_.size() && !inside; ++j) {
      if (sums_[j] <= 0.0) continue;
      block = j;
      inside = x < acc + sums_[j];
      if (!inside) acc += sums_[j];
    }
    TRAILS_CHECK(block < sums_.size(), "weighted_choice: no positive weight left");
    // Rounding can push x to the total: then the last positive row of the last positive block.
    const double local = inside ? x - acc : std::numeric_limits<double>::infinity();
    double inner = 0.0;
    std::size_t row = w_.size();
    for (std::size_t i = block * size_; i < std::min(w_.size(), (block + 1) * size_); ++i) {
      if (w_[i] <= 0.0) continue;
      row = i;
      inner += w_[i];
      if (local < inner) break;
    }
    w_[row] = 0.0;
    resum(block);
    return static_cast<std::int64_t>(row);
  }

 private:
  void resum(std::size_t j) {
    double s = 0.0;
    for (std::size_t i = j * size_; i < std::min(w_.size(), (j + 1) * size_); ++i) s += w_[i];
    sums_[j] = s;
  }

  std::vector<double>& w_;
  std::size_t size_;
  std::vector<double> sums_;
};

}  // namespace

std::vector<std::int64_t> weighted_choice(std::vector<double> weights, int n, core::Rng& rng) {
  TRAILS_CHECK(n >= 0, "weighted_choice: negative draw count");
  if (n == 0) return {};
  TRAILS_CHECK(!weights.empty(), "weighted_choice: no rows to choose from");

  // Non-finite and negative weights carry no probability (numpy would reject negatives).
  std::size_t nonzero = 0;
  for (double& w : weights) {
    if (!std::isfinite(w) || w < 0.0) w = 0.0;
    if (w > 0.0) ++nonzero;
  }
  if (nonzero == 0) {
    std::fill(weights.begin(), weights.end(), 1.0);
    nonzero = weights.size();
  }
  // Normalising first keeps the arithmetic close to Trails-MD's (p = w / sum).
  double total = 0.0;
  for (double w : weights) total += w;
  for (double& w : weights) w /= total;

  const auto count = static_cast<std::size_t>(n);
  std::vector<std::int64_t> rows;
  rows.reserve(count);
  if (weights.size() >= count && nonzero >= count) {
    BlockedSampler sampler(weights);
    for (std::size_t k = 0; k < count; ++k) rows.push_back(sampler.draw(rng.uniform()));
  } else {
    // With replacement: one cumulative table, a binary search per draw.
    std::vector<double> cumulative(weights.size());
    double acc = 0.0;
    for (std::size_t i = 0; i < weights.size(); ++i) cumulative[i] = (acc += weights[i]);
    for (std::size_t k = 0; k < count; ++k) {
      const double u = rng.uniform() * acc;
      auto it = std::upper_bound(cumulative.begin(), cumulative.end(), u);
      if (it == cumulative.end()) {  // rounding: u*acc == acc; take the last positive row
        it = std::find_if(cumulative.begin(), cumulative.end(), [&](double c) { return c >= acc; });
      }
      rows.push_back(static_cast<std::int64_t>(it - cumulative.begin()));
    }
  }
  return rows;
}

}  // namespace trails::spawners
