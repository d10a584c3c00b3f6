// Binner: maps CV points to bins (binning.scheme; docs/spawning.md "Adaptive binning"). The one
// interface every user of bins that may adapt to the data holds: the density spawner (for the
// adaptive schemes) and the weighted-ensemble resampler. A binner is fitted to the points it is
// about to bin, inside a frame grid that gives the box [min, max] per axis and each axis' bin
// count (the campaign's grid, so resolution-ladder refinements reach it: compat:adaptive-binning
// "n_bins synced"); then bin_of assigns any point a bin id in [0, total_bins()). The fitted bins
// are the binner's state (JSON, versioned), so a resumed run bins as the uninterrupted one did.
// make_binner is the one table of schemes. Not thread-safe; fit costs O(points · dim).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/binning/uniform_grid.h"

namespace trails::binning {

enum class BinningScheme { Uniform, Gradient, Mab, Eigenvector };

// "uniform", "gradient", "mab", "eigenvector" (config/ has checked the name; anything else is a
// caller bug).
BinningScheme binning_scheme(std::string_view name);
std::string_view scheme_name(BinningScheme scheme);

struct BinnerOptions {
  BinningScheme scheme = BinningScheme::Uniform;
  int n_fine = 100;   // gradient, mab: fine slices (binning.n_fine)
  int smoothing = 3;  // gradient: moving-average width (binning.smoothing)
};

class Binner {
 public:
  virtual ~Binner() = default;
  virtual BinningScheme scheme() const = 0;
  virtual std::unique_ptr<Binner> clone() const = 0;  // an independent copy, fitted bins included
  // Refits the bins to `points` (row-major, frame.dim() coordinates each) in frame's box with
  // frame's bin counts. The uniform binner takes the frame grid itself and ignores the points.
  virtual void fit(std::span<const double> points, const UniformGrid& frame) = 0;
  bool fitted() const { return total_bins() > 0; }
  // Needs a fit (or a restored state). NaN coordinates throw core::InputError.
  virtual std::int64_t bin_of(std::span<const double> point) const = 0;
  virtual std::int64_t total_bins() const = 0;  // 0 before the first fit
  // A bin's centre on the axes the binner bins (all of them, or axis 0 for eigenvector).
  virtual std::vector<double> centre(std::int64_t bin) const = 0;
  virtual nlohmann::json state() const = 0;
  virtual void restore(const nlohmann::json& state) = 0;  // core::InputError when malformed
};

std::unique_ptr<Binner> make_binner(const BinnerOptions& options);

}  // namespace trails::binning
