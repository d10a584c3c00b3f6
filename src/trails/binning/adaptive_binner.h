// The binners of binning.scheme (compat:adaptive-binning): GridBinner (uniform: the frame grid
// itself) and AdaptiveBinner (gradient, mab, eigenvector: per-axis edges fitted to the points,
// adaptive_edges.h). Use them through binner.h's make_binner.
#pragma once

#include <memory>
#include <optional>

#include "trails/binning/binner.h"
#include "trails/binning/edge_grid.h"

namespace trails::binning {

class GridBinner final : public Binner {
 public:
  BinningScheme scheme() const override { return BinningScheme::Uniform; }
  std::unique_ptr<Binner> clone() const override { return std::make_unique<GridBinner>(*this); }
  void fit(std::span<const double> points, const UniformGrid& frame) override;
  std::int64_t bin_of(std::span<const double> point) const override;
  std::int64_t total_bins() const override { return grid_ ? grid_->total_bins() : 0; }
  std::vector<double> centre(std::int64_t bin) const override;
  nlohmann::json state() const override;
  void restore(const nlohmann::json& state) override;

 private:
  std::optional<UniformGrid> grid_;
};

class AdaptiveBinner final : public Binner {
 public:
  explicit AdaptiveBinner(BinnerOptions options);
  BinningScheme scheme() const override { return options_.scheme; }
  std::unique_ptr<Binner> clone() const override { return std::make_unique<AdaptiveBinner>(*this); }
  void fit(std::span<const double> points, const UniformGrid& frame) override;
  std::int64_t bin_of(std::span<const double> point) const override;
  std::int64_t total_bins() const override { return edges_.total_bins(); }
  std::vector<double> centre(std::int64_t bin) const override { return edges_.centre(bin); }
  const EdgeGrid& edges() const { return edges_; }
  nlohmann::json state() const override;
  void restore(const nlohmann::json& state) override;

 private:
  BinnerOptions options_;
  EdgeGrid edges_;  // empty until fitted
};

}  // namespace trails::binning
