#include "trails/spawners/we_spawner.h"

#include <map>
#include <numeric>
#include <span>
#include <string>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "trails/core/error.h"
#include "trails/spawners/we_resampler.h"

namespace trails::spawners {

namespace {

// State layout version (docs/file-formats.md, the spawner state of a checkpoint). A state without
// a version is the layout of the builds before it (no binner: they binned on the uniform grid).
constexpr int kStateVersion = 1;

}  // namespace

WeSpawner::WeSpawner(WeOptions options)
    : options_(std::move(options)), binner_(binning::make_binner(options_.binning)) {}

WeSpawner::WeSpawner(const WeSpawner& other)
    : Spawner(other),
      options_(other.options_),
      weighting_(other.weighting_),
      basis_(other.basis_),
      binner_(other.binner_->clone()) {}

WeSpawner& WeSpawner::operator=(const WeSpawner& other) {
  if (this != &other) {
    options_ = other.options_;
    weighting_ = other.weighting_;
    basis_ = other.basis_;
    binner_ = other.binner_->clone();
  }
  return *this;
}

std::vector<std::int64_t> WeSpawner::choose(const SpawnPool& pool, int n, core::Rng& rng) {
  return choose(pool.history, pool.grid, n, rng);
}

std::vector<double> WeSpawner::live_weights(
    std::span<const features::FrameHistory::WalkerSpan> live) const {
  const auto& prev = weighting_.weights;
  std::vector<double> w(live.size(), 1.0 / static_cast<double>(live.size()));
  if (prev.empty()) return w;  // the first iteration: every walker weighs the same
  for (std::size_t i = 0; i < live.size(); ++i) {
    const auto slot = static_cast<std::size_t>(live[i].walker);
    TRAILS_CHECK(slot < prev.size(), "a live walker has a slot of the last spawn");
    w[i] = prev[slot];
  }
  const double kept = std::accumulate(w.begin(), w.end(), 0.0);
  const double total = std::accumulate(prev.begin(), prev.end(), 0.0);
  if (live.size() < prev.size()) {
    spdlog::warn(
        "weighted ensemble: {} walker(s) failed; their weight {:.6g} of {:.6g} is dropped "
        "and the survivors renormalised",
        prev.size() - live.size(), total - kept, total);
  }
  TRAILS_CHECK(kept > 0.0, "surviving walkers carry weight");
  for (auto& x : w) x /= kept;
  return w;
}

bool WeSpawner::in_target(std::span<const double> point) const {
  for (std::size_t d = 0; d < options_.recycle_target.size(); ++d) {
    if (point[d] < options_.recycle_target[d][0] || point[d] > options_.recycle_target[d][1]) {
      return false;
    }
  }
  return true;
}

std::vector<std::int64_t> WeSpawner::choose(const features::FrameHistory& history,
                                            const binning::UniformGrid& grid, int n,
                                            core::Rng& rng) {
  TRAILS_CHECK(history.iterations() > 0, "the weighted ensemble resamples a finished iteration");
  const std::size_t block = history.iterations() - 1;
  const auto live = history.block_walkers(block);
  TRAILS_CHECK(!live.empty(), "an iteration has at least one ok walker (failure policy)");
  std::vector<std::int64_t> endpoint;
  for (std::int64_t g = history.block_first(block); const auto& s : live) {
    endpoint.push_back(g + s.n_frames - 1);
    g += s.n_frames;
  }
  const auto weights = live_weights(live);

  const bool recycling = !options_.recycle_target.empty();
  if (recycling && !basis_) {
    if (options_.recycle_basis_index >= history.block_frames(block)) {
      throw core::InputError(fmt::format(
          "spawning.recycle_basis_index {} is beyond the {} frames of iteration {}; choose a frame "
          "of the first iteration (0 to {})",
          options_.recycle_basis_index, history.block_frames(block),
          history.key_of(endpoint[0]).iteration, history.block_frames(block) - 1));
    }
    basis_ = history.block_first(block) + options_.recycle_basis_index;
  }
  if (recycling && static_cast<int>(options_.recycle_target.size()) != history.cv_dim()) {
    throw core::InputError(
        fmt::format("spawning.recycle_target has {} boxes but the CV space has {} dimensions",
                    options_.recycle_target.size(), history.cv_dim()));
  }
  // Recycle, then bin (recycled walkers at the basis); bins renumbered densely in ascending
  // bin-id order, which is the order the resampled bins are concatenated in.
  std::vector<char> recycled(live.size(), 0);
  double flux = 0.0;
  std::int64_t n_recycled = 0;
  const auto d = static_cast<std::size_t>(history.cv_dim());
  std::vector<double> points;  // the live end points, recycled ones moved to the basis
  points.reserve(live.size() * d);
  for (std::size_t i = 0; i < live.size(); ++i) {
    const auto p = history.point(endpoint[i]);
    recycled[i] = recycling && in_target(p) ? 1 : 0;
    if (recycled[i]) {
      flux += weights[i];
      ++n_recycled;
    }
    const auto at = recycled[i] ? history.point(*basis_) : p;
    points.insert(points.end(), at.begin(), at.end());
  }
  // The bins of this call, fixed from here to the end of the resampling (docs/kinetics.md,
  // "Adaptive bins"): uniform takes the grid, an adaptive scheme refits its edges to the points
  // it is about to bin (the live ensemble, as Trails-MD's WE binner is fitted).
  binner_->fit(points, grid);
  std::vector<std::int64_t> bin(live.size());
  for (std::size_t i = 0; i < live.size(); ++i) {
    bin[i] = binner_->bin_of(std::span<const double>(points).subspan(i * d, d));
  }
  std::map<std::int64_t, std::int64_t> dense;
  for (const auto b : bin) dense.emplace(b, 0);
  std::int64_t next = 0;
  for (auto& [b, label] : dense) label = next++;
  std::vector<std::int64_t> labels;
  for (const auto b : bin) labels.push_back(dense.at(b));

  const auto targets = options_.per_bin ? per_bin_targets(labels, next, options_.target_per_bin)
                                        : budget_targets(labels, next, n);
  auto res = we_resample(weights, labels, targets, /*equalise=*/true, rng);
  const double total = std::accumulate(res.weights.begin(), res.weights.end(), 0.0);
  Weighting w;
  std::vector<std::int64_t> chosen;
  for (std::size_t k = 0; k < res.parents.size(); ++k) {
    const auto parent = static_cast<std::size_t>(res.parents[k]);
    w.weights.push_back(res.weights[k] / total);  // cosmetic: the sum is 1 to 1e-9 already
    w.recycled.push_back(recycled[parent]);
    chosen.push_back(recycled[parent] ? *basis_ : endpoint[parent]);
  }
  if (recycling) w.recycled_flux = flux;
  w.recycled_walkers = n_recycled;
  weighting_ = std::move(w);
  return chosen;
}

nlohmann::json WeSpawner::state() const {
  nlohmann::json s = {{"version", kStateVersion},
                      {"weights", weighting_.weights},
                      {"recycled", weighting_.recycled},
                      {"recycled_walkers", weighting_.recycled_walkers}};
  s["recycled_flux"] = weighting_.recycled_flux ? nlohmann::json(*weighting_.recycled_flux)
                                                : nlohmann::json(nullptr);
  s["basis_frame"] = basis_ ? nlohmann::json(*basis_) : nlohmann::json(nullptr);
  s["binner"] = binner_->state();
  return s;
}

void WeSpawner::restore(const nlohmann::json& state) {
  const auto read = [this](const nlohmann::json& blob) {
    Weighting w;
    w.weights = blob.at("weights").get<std::vector<double>>();
    w.recycled = blob.at("recycled").get<std::vector<char>>();
    w.recycled_walkers = blob.at("recycled_walkers").get<std::int64_t>();
    if (!blob.at("recycled_flux").is_null())
      w.recycled_flux = blob.at("recycled_flux").get<double>();
    std::optional<std::int64_t> basis;
    if (!blob.at("basis_frame").is_null()) basis = blob.at("basis_frame").get<std::int64_t>();
    // The bins are refitted at the start of every choose(); the restored ones are those the last
    // resampling used (what `trails status` and a resumed run's first look report).
    if (blob.contains("binner")) binner_->restore(blob.at("binner"));
    weighting_ = std::move(w);  // last: a refused state changes nothing
    basis_ = basis;
  };
  if (state.is_object() && !state.contains("version")) {
    // A checkpoint of a build before the versioned layout: same fields, uniform bins.
    try {
      read(state);
    } catch (const nlohmann::json::exception& e) {
      throw core::InputError(std::string("malformed weighted-ensemble spawner state: ") + e.what());
    }
    return;
  }
  restore_versioned(state, "weighted-ensemble spawner", kStateVersion, read);
}

}  // namespace trails::spawners
