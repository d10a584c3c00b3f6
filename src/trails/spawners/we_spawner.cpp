#include "trails/spawners/we_spawner.h"

#include <map>
#include <numeric>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "trails/core/error.h"
#include "trails/spawners/we_resampler.h"

namespace trails::spawners {

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
  // Recycle, then bin (recycled walkers in the basis's bin); bins renumbered densely in
  // ascending grid order, which is the order the resampled bins are concatenated in.
  std::vector<char> recycled(live.size(), 0);
  double flux = 0.0;
  std::int64_t n_recycled = 0;
  std::vector<std::int64_t> bin(live.size());
  for (std::size_t i = 0; i < live.size(); ++i) {
    const auto p = history.point(endpoint[i]);
    recycled[i] = recycling && in_target(p) ? 1 : 0;
    if (recycled[i]) {
      flux += weights[i];
      ++n_recycled;
    }
    bin[i] = grid.bin_of(recycled[i] ? history.point(*basis_) : p);
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
  nlohmann::json s = {{"weights", weighting_.weights},
                      {"recycled", weighting_.recycled},
                      {"recycled_walkers", weighting_.recycled_walkers}};
  s["recycled_flux"] = weighting_.recycled_flux ? nlohmann::json(*weighting_.recycled_flux)
                                                : nlohmann::json(nullptr);
  s["basis_frame"] = basis_ ? nlohmann::json(*basis_) : nlohmann::json(nullptr);
  return s;
}

void WeSpawner::restore(const nlohmann::json& state) {
  weighting_ = {};
  weighting_.weights = state.at("weights").get<std::vector<double>>();
  weighting_.recycled = state.at("recycled").get<std::vector<char>>();
  weighting_.recycled_walkers = state.at("recycled_walkers").get<std::int64_t>();
  if (!state.at("recycled_flux").is_null()) {
    weighting_.recycled_flux = state.at("recycled_flux").get<double>();
  }
  basis_.reset();
  if (!state.at("basis_frame").is_null()) basis_ = state.at("basis_frame").get<std::int64_t>();
}

}  // namespace trails::spawners
