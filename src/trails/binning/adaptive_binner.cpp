// GridBinner and AdaptiveBinner; make_binner, the one table of binning schemes.
#include "trails/binning/adaptive_binner.h"

#include <string>

#include "trails/binning/adaptive_edges.h"
#include "trails/core/error.h"

namespace trails::binning {
namespace {

constexpr int kStateVersion = 1;

void check_state(const nlohmann::json& state, BinningScheme scheme) {
  if (state.at("version").get<int>() != kStateVersion) {
    throw core::InputError("binner state has unsupported version " + state.at("version").dump());
  }
  const auto name = state.at("scheme").get<std::string>();
  if (name != scheme_name(scheme)) {
    throw core::InputError("binner state is of the " + name + " scheme, this run bins with " +
                           std::string(scheme_name(scheme)));
  }
}

}  // namespace

BinningScheme binning_scheme(std::string_view name) {
  if (name == "uniform") return BinningScheme::Uniform;
  if (name == "gradient") return BinningScheme::Gradient;
  if (name == "mab") return BinningScheme::Mab;
  TRAILS_CHECK(name == "eigenvector", "binning.scheme admitted by config/");
  return BinningScheme::Eigenvector;
}

std::string_view scheme_name(BinningScheme scheme) {
  switch (scheme) {
    case BinningScheme::Uniform:
      return "uniform";
    case BinningScheme::Gradient:
      return "gradient";
    case BinningScheme::Mab:
      return "mab";
    case BinningScheme::Eigenvector:
      return "eigenvector";
  }
  return "uniform";
}

std::unique_ptr<Binner> make_binner(const BinnerOptions& options) {
  if (options.scheme == BinningScheme::Uniform) return std::make_unique<GridBinner>();
  return std::make_unique<AdaptiveBinner>(options);
}

void GridBinner::fit(std::span<const double> /*points*/, const UniformGrid& frame) {
  grid_ = frame;
}

std::int64_t GridBinner::bin_of(std::span<const double> point) const {
  TRAILS_CHECK(grid_.has_value(), "GridBinner::bin_of before fit");
  return grid_->bin_of(point);
}

std::vector<double> GridBinner::centre(std::int64_t bin) const {
  TRAILS_CHECK(grid_.has_value(), "GridBinner::centre before fit");
  return grid_->centre(bin);
}

nlohmann::json GridBinner::state() const {
  nlohmann::json s = {{"version", kStateVersion}, {"scheme", "uniform"}, {"grid", nullptr}};
  if (grid_) {
    s["grid"] = {
        {"n_bins", grid_->n_bins()}, {"min", grid_->min_values()}, {"max", grid_->max_values()}};
  }
  return s;
}

void GridBinner::restore(const nlohmann::json& state) {
  try {
    check_state(state, BinningScheme::Uniform);
    const auto& g = state.at("grid");
    if (g.is_null()) {
      grid_.reset();
      return;
    }
    grid_.emplace(g.at("n_bins").get<std::vector<int>>(), g.at("min").get<std::vector<double>>(),
                  g.at("max").get<std::vector<double>>());
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError(std::string("malformed binner state: ") + e.what());
  } catch (const core::InternalError& e) {
    throw core::InputError(std::string("malformed binner state: ") + e.what());
  }
}

AdaptiveBinner::AdaptiveBinner(BinnerOptions options) : options_(options) {
  TRAILS_CHECK(options_.scheme != BinningScheme::Uniform, "AdaptiveBinner: uniform is GridBinner");
  TRAILS_CHECK(options_.n_fine > 0 && options_.smoothing >= 0,
               "AdaptiveBinner: n_fine > 0 and smoothing >= 0");
}

void AdaptiveBinner::fit(std::span<const double> points, const UniformGrid& frame) {
  const auto dim = static_cast<std::size_t>(frame.dim());
  TRAILS_CHECK(points.size() % dim == 0, "AdaptiveBinner::fit: points of the wrong dimension");
  const std::size_t n = points.size() / dim;
  const auto& nb = frame.n_bins();
  const auto& lo = frame.min_values();
  const auto& hi = frame.max_values();
  if (options_.scheme == BinningScheme::Eigenvector) {
    // Axis 0 only (Trails-MD's `coordinate` 0), n_bins[0] equal bins.
    edges_ = EdgeGrid({uniform_edges(lo[0], hi[0], nb[0])});
    return;
  }
  std::vector<std::vector<double>> edges;
  std::vector<double> column(n);
  for (std::size_t d = 0; d < dim; ++d) {
    for (std::size_t i = 0; i < n; ++i) column[i] = points[i * dim + d];
    edges.push_back(
        options_.scheme == BinningScheme::Gradient
            ? gradient_edges(column, lo[d], hi[d], nb[d], options_.n_fine, options_.smoothing)
            : mab_edges(column, lo[d], hi[d], nb[d], options_.n_fine));
  }
  edges_ = EdgeGrid(std::move(edges));
}

std::int64_t AdaptiveBinner::bin_of(std::span<const double> point) const {
  TRAILS_CHECK(!edges_.empty(), "AdaptiveBinner::bin_of before fit");
  return edges_.bin_of(point);
}

nlohmann::json AdaptiveBinner::state() const {
  return {{"version", kStateVersion},
          {"scheme", std::string(scheme_name(options_.scheme))},
          {"edges", edges_.empty() ? nlohmann::json(nullptr) : edges_.to_json()}};
}

void AdaptiveBinner::restore(const nlohmann::json& state) {
  try {
    check_state(state, options_.scheme);
    const auto& e = state.at("edges");
    edges_ = e.is_null() ? EdgeGrid() : EdgeGrid::from_json(e);
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError(std::string("malformed binner state: ") + e.what());
  }
}

}  // namespace trails::binning
