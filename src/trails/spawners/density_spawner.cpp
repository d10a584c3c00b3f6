// DensitySpawner: compat:density-spawner with fix:hard-target-closeness (closeness survives the
// hard-mode shuffle; the target bin has closeness 1). Random numbers are consumed in this order:
//   hard: per population tier taken (ascending), shuffle(fresh) then shuffle(stale), each a
//         Fisher–Yates pass of k-1 rng.below() calls for a group of k bins;
//   soft: n rng.uniform() calls inside weighted_choice;
//   then: one rng.below(population) per selected bin, in selection order, for its member frame.
#include "trails/spawners/density_spawner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "trails/core/error.h"

namespace trails::spawners {
namespace {

// c_b = 1/‖centre_b − centre_target‖ min–max normalised over the occupied bins. The target bin
// (distance 0, c = +inf) is treated as the maximum, i.e. it gets 1; a degenerate range gives 1.
void set_closeness(std::vector<BinStat>& bins, const binning::UniformGrid& grid,
                   const std::vector<double>& target) {
  const std::int64_t target_bin = grid.bin_of(target);
  const std::vector<double> tc = grid.centre(target_bin);
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (BinStat& s : bins) {
    if (s.bin == target_bin) continue;
    const std::vector<double> c = grid.centre(s.bin);
    double d2 = 0.0;
    for (std::size_t k = 0; k < c.size(); ++k) d2 += (c[k] - tc[k]) * (c[k] - tc[k]);
    s.closeness = 1.0 / std::sqrt(d2);
    lo = std::min(lo, s.closeness);
    hi = std::max(hi, s.closeness);
  }
  for (BinStat& s : bins) {
    if (s.bin == target_bin || !(hi > lo)) {
      s.closeness = 1.0;
    } else {
      s.closeness = (s.closeness - lo) / (hi - lo);
    }
  }
}

// Adaptive binners (compat:adaptive-binning): closeness (d_max − d)/(d_max − d_min) of the
// bin-centre distance to the target on the binned axes; 1 for all when the range is degenerate.
void set_linear_closeness(std::vector<BinStat>& bins, const binning::Binner& binner,
                          const std::vector<double>& target) {
  std::vector<double> dist;
  dist.reserve(bins.size());
  for (const BinStat& s : bins) {
    const std::vector<double> c = binner.centre(s.bin);
    double d2 = 0.0;
    for (std::size_t k = 0; k < c.size(); ++k) d2 += (c[k] - target[k]) * (c[k] - target[k]);
    dist.push_back(std::sqrt(d2));
  }
  const auto [lo, hi] = std::minmax_element(dist.begin(), dist.end());
  const double d_min = *lo, d_max = *hi;
  for (std::size_t i = 0; i < bins.size(); ++i) {
    bins[i].closeness = d_max > d_min ? (d_max - dist[i]) / (d_max - d_min) : 1.0;
  }
}

}  // namespace

DensitySpawner::DensitySpawner(DensityOptions options) : options_(std::move(options)) {
  if (options_.binning.scheme != binning::BinningScheme::Uniform) {
    binner_ = binning::make_binner(options_.binning);
  }
  TRAILS_CHECK(options_.recent_window >= 0, "DensitySpawner: recent_window must be >= 0");
  TRAILS_CHECK(!options_.target || !options_.target->empty(),
               "DensitySpawner: target mode needs a target point");
}

DensitySpawner::DensitySpawner(const DensitySpawner& other)
    : Spawner(other),
      options_(other.options_),
      binner_(other.binner_ ? other.binner_->clone() : nullptr),
      recent_(other.recent_) {}

DensitySpawner& DensitySpawner::operator=(const DensitySpawner& other) {
  if (this != &other) {
    options_ = other.options_;
    binner_ = other.binner_ ? other.binner_->clone() : nullptr;
    recent_ = other.recent_;
  }
  return *this;
}

std::vector<double> DensitySpawner::soft_weights(const std::vector<BinStat>& bins) const {
  std::vector<double> w;
  w.reserve(bins.size());
  for (const BinStat& s : bins) {
    TRAILS_CHECK(s.population > 0, "DensitySpawner: soft weight of an empty bin");
    w.push_back(s.closeness / static_cast<double>(s.population));
  }
  return w;
}

std::vector<std::int64_t> DensitySpawner::hard_order(const std::vector<BinStat>& bins, int n,
                                                     core::Rng& rng) const {
  TRAILS_CHECK(n >= 0, "DensitySpawner: negative walker count");
  if (n == 0) return {};
  TRAILS_CHECK(!bins.empty(), "DensitySpawner: no occupied bins to spawn from");

  std::vector<std::int64_t> memory;  // union of the remembered selections, sorted
  for (const auto& sel : recent_) memory.insert(memory.end(), sel.begin(), sel.end());
  std::sort(memory.begin(), memory.end());
  memory.erase(std::unique(memory.begin(), memory.end()), memory.end());

  // Tiers of equal population, ascending; a tier keeps the input order (ascending bin id from
  // choose()) before it is shuffled, so the result depends only on the histogram and the rng.
  std::vector<BinStat> sorted = bins;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const BinStat& a, const BinStat& b) { return a.population < b.population; });
  const bool target_mode = options_.target.has_value();
  auto order_group = [&](std::vector<BinStat>& group) {
    core::shuffle(group.begin(), group.end(), rng);
    // Closeness after the shuffle: the shuffle then only breaks ties (fix:hard-target-closeness).
    if (target_mode) {
      std::stable_sort(group.begin(), group.end(), [](const BinStat& a, const BinStat& b) {
        return a.closeness > b.closeness;
      });
    }
  };

  const auto want = static_cast<std::size_t>(n);
  std::vector<std::int64_t> collected;
  for (std::size_t start = 0; start < sorted.size() && collected.size() < want;) {
    std::size_t end = start;
    while (end < sorted.size() && sorted[end].population == sorted[start].population) ++end;
    std::vector<BinStat> fresh, stale;
    for (std::size_t i = start; i < end; ++i) {
      const bool seen = std::binary_search(memory.begin(), memory.end(), sorted[i].bin);
      (seen ? stale : fresh).push_back(sorted[i]);
    }
    order_group(fresh);
    order_group(stale);
    for (const BinStat& s : fresh) collected.push_back(s.bin);
    for (const BinStat& s : stale) collected.push_back(s.bin);
    start = end;
  }

  if (collected.size() >= want) {
    collected.resize(want);
    return collected;
  }
  // Fewer occupied bins than walkers: repeat the whole order (Trails-MD tiles it).
  std::vector<std::int64_t> tiled(want);
  for (std::size_t k = 0; k < want; ++k) tiled[k] = collected[k % collected.size()];
  return tiled;
}

std::vector<std::int64_t> DensitySpawner::choose(const SpawnPool& pool, int n, core::Rng& rng) {
  if (!binner_) return choose(pool.bins, pool.grid, n, rng);
  // Adaptive scheme: refit the bins to the pool (inside the campaign grid's box and bin counts,
  // which the resolution ladder refines) and bin every pool frame afresh: O(pool frames).
  const std::vector<double> points = pool_points(pool.history, pool.first);
  binner_->fit(points, pool.grid);
  const auto d = static_cast<std::size_t>(pool.grid.dim());
  std::vector<std::int64_t> bins(points.size() / d);
  for (std::size_t f = 0; f < bins.size(); ++f) {
    bins[f] = binner_->bin_of(std::span<const double>(points).subspan(f * d, d));
  }
  binning::BinTable table(/*droppable=*/false);
  table.add_block(pool.first, bins);
  const Closeness closeness = [this](std::vector<BinStat>& stats, const std::vector<double>& t) {
    set_linear_closeness(stats, *binner_, t);
  };
  return choose_from(table, pool.grid.dim(), closeness, n, rng);
}

std::vector<std::int64_t> DensitySpawner::choose(const binning::BinTable& table,
                                                 const binning::UniformGrid& grid, int n,
                                                 core::Rng& rng) {
  const Closeness closeness = [&grid](std::vector<BinStat>& stats, const std::vector<double>& t) {
    set_closeness(stats, grid, t);
  };
  return choose_from(table, grid.dim(), closeness, n, rng);
}

std::vector<std::int64_t> DensitySpawner::choose_from(const binning::BinTable& table, int cv_dim,
                                                      const Closeness& closeness, int n,
                                                      core::Rng& rng) {
  TRAILS_CHECK(n >= 0, "DensitySpawner: negative walker count");
  if (n == 0) return {};
  std::vector<BinStat> bins;
  const auto collect = [&](std::int64_t bin, std::int64_t pop) {
    bins.push_back(BinStat{bin, pop, 1.0});
  };
  if (options_.hard && !options_.target) {
    // Hard explore mode only ever reaches the lowest population tiers: visit just those (in
    // the same (population, bin id) order hard_order would sort them into), so the cost does
    // not grow with the number of occupied bins.
    table.for_each_in_lowest_tiers(n, collect);
  } else {
    bins.reserve(static_cast<std::size_t>(table.occupied()));
    table.for_each_occupied(collect);
  }
  TRAILS_CHECK(!bins.empty(), "DensitySpawner: the frame pool is empty");
  if (options_.target) {
    check_target_dimension(*options_.target, cv_dim);
    closeness(bins, *options_.target);
  }

  std::vector<std::int64_t> selected;
  if (options_.hard) {
    selected = hard_order(bins, n, rng);
    if (options_.recent_window > 0) {
      std::vector<std::int64_t> ids = selected;
      std::sort(ids.begin(), ids.end());
      ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
      recent_.push_back(std::move(ids));
      while (recent_.size() > static_cast<std::size_t>(options_.recent_window)) recent_.pop_front();
    }
  } else {
    for (std::int64_t row : weighted_choice(soft_weights(bins), n, rng)) {
      selected.push_back(bins[static_cast<std::size_t>(row)].bin);
    }
  }

  std::vector<std::int64_t> frames;
  frames.reserve(selected.size());
  for (std::int64_t bin : selected) {
    const auto pop = static_cast<std::uint64_t>(table.population(bin));
    frames.push_back(table.member(bin, static_cast<std::int64_t>(rng.below(pop))));
  }
  return frames;
}

nlohmann::json DensitySpawner::state() const {
  nlohmann::json recent = nlohmann::json::array();
  for (const auto& sel : recent_) recent.push_back(sel);
  nlohmann::json s{{"version", 1}, {"recent_bins", recent}};
  // Only adaptive schemes have a binner: a uniform run's state is what it always was.
  if (binner_) s["binner"] = binner_->state();
  return s;
}

void DensitySpawner::restore(const nlohmann::json& state) {
  restore_versioned(state, "density spawner", 1, [this](const nlohmann::json& blob) {
    std::deque<std::vector<std::int64_t>> recent;
    for (const auto& sel : blob.at("recent_bins")) {
      recent.push_back(sel.get<std::vector<std::int64_t>>());
    }
    // A smaller window than at checkpoint time keeps the newest selections, like deque(maxlen).
    while (recent.size() > static_cast<std::size_t>(options_.recent_window)) recent.pop_front();
    if (binner_ && blob.contains("binner")) binner_->restore(blob.at("binner"));
    recent_ = std::move(recent);  // last: a refused state changes nothing
  });
}

}  // namespace trails::spawners
