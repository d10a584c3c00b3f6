// VoronoiSpawner. Random numbers are consumed in this order: when k < N and the subsample is
// smaller than the pool, one rng.uniform() per scanned pool point until the subsample is full
// (Knuth's selection sampling, so the subsample keeps pool order); when k < N, one
// rng.next_u64() as the k-means++ seed; then weighted_choice's n rng.uniform() calls; then one
// rng.below(population) per chosen cell, in choice order, for its member frame.
#include "trails/spawners/voronoi_spawner.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "trails/analysis/clustering.h"
#include "trails/core/error.h"
#include "trails/spawners/density_spawner.h"

namespace trails::spawners {
namespace {

constexpr int kMaxIter = 100;               // Trails-MD's MiniBatchKMeans default
constexpr std::int64_t kMinSample = 10000;  // subsample max(10000, 20 k) points
constexpr std::int64_t kSamplePerCell = 20;

// Knuth's selection sampling (TAOCP 3.4.2, Algorithm S): m of the n rows, in row order.
std::vector<double> subsample(const std::vector<double>& points, std::int64_t m, core::Rng& rng) {
  const auto n = static_cast<std::int64_t>(points.size() / 2);
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(m) * 2);
  std::int64_t taken = 0;
  for (std::int64_t i = 0; i < n && taken < m; ++i) {
    if (static_cast<double>(n - i) * rng.uniform() < static_cast<double>(m - taken)) {
      out.push_back(points[static_cast<std::size_t>(2 * i)]);
      out.push_back(points[static_cast<std::size_t>(2 * i + 1)]);
      ++taken;
    }
  }
  return out;
}

}  // namespace

VoronoiSpawner::VoronoiSpawner(VoronoiOptions options)
    : options_(std::move(options)), cells_(options_.cells) {
  TRAILS_CHECK(cells_ >= 1, "VoronoiSpawner: voronoi_clusters must be >= 1");
}

void VoronoiSpawner::set_cells(int cells) {
  TRAILS_CHECK(cells >= 1, "VoronoiSpawner: the cell count must be >= 1");
  cells_ = cells;
}

VoronoiPartition VoronoiSpawner::partition(const std::vector<double>& points,
                                           const analysis::VoronoiBox& box, core::Rng& rng) const {
  const auto n = static_cast<std::int64_t>(points.size() / 2);
  TRAILS_CHECK(n > 0, "VoronoiSpawner: the frame pool is empty");
  const std::int64_t k = std::min<std::int64_t>(cells_, n);
  VoronoiPartition out;
  if (k == n) {
    out.centres = points;
  } else {
    const std::int64_t m = std::min(n, std::max(kMinSample, kSamplePerCell * k));
    const std::vector<double> sample = m < n ? subsample(points, m, rng) : points;
    analysis::KMeansOptions o;
    o.k = static_cast<int>(k);
    o.max_iter = kMaxIter;
    o.seed = rng.next_u64();
    const auto model = analysis::kmeans(analysis::points_view(sample, m, 2), o);
    out.centres.assign(model.centres.data(), model.centres.data() + model.centres.size());
  }
  // Centres inside the box: wrapped on a torus, else clipped (Trails-MD does the same).
  for (std::size_t c = 0; c < out.centres.size(); c += 2) {
    std::span<double> p(out.centres.data() + c, 2);
    if (box.periodic) {
      analysis::wrap_into_box(box, p);
    } else {
      for (std::size_t a = 0; a < 2; ++a) p[a] = std::clamp(p[a], box.lo[a], box.hi[a]);
    }
  }
  out.labels = analysis::voronoi_assign(out.centres, points, box);
  out.areas = analysis::voronoi_cell_areas(out.centres, box);
  return out;
}

std::vector<double> VoronoiSpawner::cell_weights(const VoronoiPartition& cells,
                                                 const analysis::VoronoiBox& box) const {
  const std::size_t k = cells.areas.size();
  std::vector<double> population(k, 0.0);
  for (const int l : cells.labels) population[static_cast<std::size_t>(l)] += 1.0;
  std::vector<double> w(k, 0.0);
  for (std::size_t c = 0; c < k; ++c) {
    const double a = cells.areas[c];
    if (population[c] > 0 && std::isfinite(a) && a > 0) w[c] = a / population[c];
  }
  if (!options_.target) return w;
  // Closeness to the target's cell, over the occupied cells (compat:target-search).
  std::vector<double> t = *options_.target;
  check_target_dimension(t, 2);
  analysis::wrap_into_box(box, t);
  const int target_cell = analysis::voronoi_assign(cells.centres, t, box).front();
  const double* tc = cells.centres.data() + 2 * static_cast<std::size_t>(target_cell);
  std::vector<double> dist(k, 0.0);
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (std::size_t c = 0; c < k; ++c) {
    if (population[c] == 0) continue;
    dist[c] = std::sqrt(analysis::box_dist2(box, cells.centres.data() + 2 * c, tc));
    lo = std::min(lo, dist[c]);
    hi = std::max(hi, dist[c]);
  }
  for (std::size_t c = 0; c < k; ++c) w[c] *= hi > lo ? (hi - dist[c]) / (hi - lo) : 1.0;
  return w;
}

std::vector<std::int64_t> VoronoiSpawner::choose(const SpawnPool& pool, int n, core::Rng& rng) {
  TRAILS_CHECK(n >= 0, "VoronoiSpawner: negative walker count");
  if (n == 0) return {};
  if (pool.history.cv_dim() != 2) {
    throw core::InputError("spawn_scheme voronoi needs a 2-D CV space, this one has " +
                           std::to_string(pool.history.cv_dim()) + " dimension(s)");
  }
  analysis::VoronoiBox box;
  box.periodic = options_.periodic;
  for (std::size_t a = 0; a < 2; ++a) {
    box.lo[a] = pool.grid.min_values()[a];
    box.hi[a] = pool.grid.max_values()[a];
  }
  std::vector<double> pts = pool_points(pool.history, pool.first);
  if (box.periodic) {
    for (std::size_t i = 0; i < pts.size(); i += 2) analysis::wrap_into_box(box, {&pts[i], 2});
  }
  const VoronoiPartition cells = partition(pts, box, rng);
  // Members of every cell in pool order (a counting sort of the labels).
  const std::size_t k = cells.areas.size();
  std::vector<std::int64_t> start(k + 1, 0);
  for (const int l : cells.labels) ++start[static_cast<std::size_t>(l) + 1];
  for (std::size_t c = 0; c < k; ++c) start[c + 1] += start[c];
  std::vector<std::int64_t> members(cells.labels.size());
  std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
  for (std::size_t i = 0; i < cells.labels.size(); ++i) {
    members[static_cast<std::size_t>(fill[static_cast<std::size_t>(cells.labels[i])]++)] =
        static_cast<std::int64_t>(i);
  }
  // Draw among the occupied cells only (an empty cell has no frame to restart from).
  const std::vector<double> w_all = cell_weights(cells, box);
  std::vector<std::size_t> occupied;
  std::vector<double> w;
  for (std::size_t c = 0; c < k; ++c) {
    if (start[c + 1] > start[c]) {
      occupied.push_back(c);
      w.push_back(w_all[c]);
    }
  }
  std::vector<std::int64_t> frames;
  frames.reserve(static_cast<std::size_t>(n));
  for (const std::int64_t row : weighted_choice(w, n, rng)) {
    const std::size_t c = occupied[static_cast<std::size_t>(row)];
    const auto pop = static_cast<std::uint64_t>(start[c + 1] - start[c]);
    const auto pick = static_cast<std::int64_t>(rng.below(pop));
    frames.push_back(pool.first + members[static_cast<std::size_t>(start[c] + pick)]);
  }
  return frames;
}

nlohmann::json VoronoiSpawner::state() const {
  return nlohmann::json{{"version", 1}, {"cells", cells_}};
}

void VoronoiSpawner::restore(const nlohmann::json& state) {
  restore_versioned(state, "Voronoi spawner", 1, [this](const nlohmann::json& blob) {
    const int cells = blob.at("cells").get<int>();
    if (cells < 1) throw core::InputError("Voronoi spawner state has a cell count below 1");
    cells_ = cells;
  });
}

}  // namespace trails::spawners
