// Weighted-ensemble resampling (we_resampler.h). The random numbers are exactly one
// rng.uniform() per merge, drawn in bin order, so a campaign resamples bitwise the same on
// resume.
#include "trails/spawners/we_resampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::spawners {
namespace {

struct Member {
  double weight;
  std::int64_t parent;
  std::int64_t order;  // insertion counter: ties between equal weights go to the older walker
};

// Heap order: the lightest (then the oldest) on top.
bool heavier(const Member& a, const Member& b) {
  return a.weight != b.weight ? a.weight > b.weight : a.order > b.order;
}

class Bin {
 public:
  void add(double w, std::int64_t parent) { m_.push_back({w, parent, counter_++}); }
  std::size_t size() const { return m_.size(); }

  // Merges the two lightest until `target` remain; the survivor is drawn ∝ weight.
  void merge_to(std::size_t target, core::Rng& rng) {
    std::make_heap(m_.begin(), m_.end(), heavier);
    while (m_.size() > target) {
      std::pop_heap(m_.begin(), m_.end(), heavier);
      const Member a = m_.back();
      m_.pop_back();
      std::pop_heap(m_.begin(), m_.end(), heavier);
      const Member b = m_.back();
      m_.pop_back();
      const double sum = a.weight + b.weight;
      const double p_a = sum > 0.0 ? a.weight / sum : 0.5;
      const std::int64_t parent = rng.uniform() < p_a ? a.parent : b.parent;
      m_.push_back({sum, parent, counter_++});
      std::push_heap(m_.begin(), m_.end(), heavier);
    }
  }

  // Halves the heaviest (the first of equals) until `target` walkers exist (binary splitting,
  // compat:we-binary-split).
  void split_to(std::size_t target) {
    while (m_.size() < target) {
      auto heaviest = std::max_element(m_.begin(), m_.end(), [](const Member& a, const Member& b) {
        return a.weight < b.weight;
      });
      heaviest->weight *= 0.5;
      m_.push_back({heaviest->weight, heaviest->parent, counter_++});
    }
  }

  bool spread_ok() const {
    const auto [lo, hi] = std::minmax_element(
        m_.begin(), m_.end(), [](const Member& a, const Member& b) { return a.weight < b.weight; });
    return lo->weight > 0.0 && hi->weight <= 4.0 * lo->weight;
  }

  // Members in the order they stand (merge results last).
  const std::vector<Member>& members() const { return m_; }

 private:
  std::vector<Member> m_;
  std::int64_t counter_ = 0;
};

std::vector<std::int64_t> populations(std::span<const std::int64_t> labels, std::int64_t n_labels) {
  std::vector<std::int64_t> n(static_cast<std::size_t>(n_labels), 0);
  for (const auto l : labels) {
    TRAILS_CHECK(l >= 0 && l < n_labels, "bin label out of range");
    ++n[static_cast<std::size_t>(l)];
  }
  return n;
}

}  // namespace

std::vector<int> budget_targets(std::span<const std::int64_t> labels, std::int64_t n_labels,
                                int budget) {
  const auto n = populations(labels, n_labels);
  std::vector<std::int64_t> occupied;
  for (std::int64_t b = 0; b < n_labels; ++b) {
    if (n[static_cast<std::size_t>(b)] > 0) occupied.push_back(b);
  }
  if (static_cast<std::int64_t>(occupied.size()) > budget) {
    throw core::InputError(fmt::format(
        "weighted ensemble: {} bins hold walkers but spawning.walker is {}; every occupied bin "
        "needs a walker: raise spawning.walker to at least {}",
        occupied.size(), budget, occupied.size()));
  }
  std::stable_sort(occupied.begin(), occupied.end(), [&](std::int64_t a, std::int64_t b) {
    return n[static_cast<std::size_t>(a)] < n[static_cast<std::size_t>(b)];
  });
  std::vector<int> targets(static_cast<std::size_t>(n_labels), 0);
  for (int k = 0; k < budget && !occupied.empty(); ++k) {
    ++targets[static_cast<std::size_t>(occupied[static_cast<std::size_t>(k) % occupied.size()])];
  }
  return targets;
}

std::vector<int> per_bin_targets(std::span<const std::int64_t> labels, std::int64_t n_labels,
                                 int per_bin) {
  TRAILS_CHECK(per_bin > 0, "we_target_per_bin > 0 (checked by config/)");
  const auto n = populations(labels, n_labels);
  std::vector<int> targets(static_cast<std::size_t>(n_labels), 0);
  for (std::size_t b = 0; b < n.size(); ++b) targets[b] = n[b] > 0 ? per_bin : 0;
  return targets;
}

WeResampled we_resample(std::span<const double> weights, std::span<const std::int64_t> labels,
                        std::span<const int> targets, bool equalise, core::Rng& rng) {
  TRAILS_CHECK(weights.size() == labels.size(), "one bin label per walker");
  const auto n_labels = static_cast<std::int64_t>(targets.size());
  std::vector<Bin> bins(static_cast<std::size_t>(n_labels));
  for (std::size_t i = 0; i < weights.size(); ++i) {
    bins.at(static_cast<std::size_t>(labels[i])).add(weights[i], static_cast<std::int64_t>(i));
  }
  WeResampled out;
  for (std::size_t b = 0; b < bins.size(); ++b) {
    auto& bin = bins[b];
    if (bin.size() == 0) continue;
    const auto t = static_cast<std::size_t>(targets[b]);
    TRAILS_CHECK(t >= 1, "every occupied bin has a walker target");
    bin.merge_to(t, rng);
    bin.split_to(t);
    // Equalisation: a bin whose weights span more than 4x keeps resolving its lightest walkers
    // into its heaviest (compat:we-equalise); 200 rounds bound a pathological bin.
    for (int round = 0; equalise && t >= 2 && round < 200 && !bin.spread_ok(); ++round) {
      bin.merge_to(t - 1, rng);
      bin.split_to(t);
    }
    for (const auto& m : bin.members()) {
      out.parents.push_back(m.parent);
      out.weights.push_back(m.weight);
    }
  }
  const double before = std::accumulate(weights.begin(), weights.end(), 0.0);
  const double after = std::accumulate(out.weights.begin(), out.weights.end(), 0.0);
  if (std::abs(after - before) > 1e-9 * std::max(std::abs(before), 1e-300)) {
    throw core::InternalError(fmt::format(
        "weighted ensemble: resampling changed the total weight from {:.17g} to {:.17g} (a leak)",
        before, after));
  }
  return out;
}

}  // namespace trails::spawners
