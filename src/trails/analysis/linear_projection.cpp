// Linear projection of frames and its flat serialisation.
#include "trails/analysis/linear_projection.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "trails/core/error.h"

namespace trails::analysis {

FrameMatrix LinearProjection::transform(const Eigen::Ref<const FrameMatrix>& frames) const {
  if (frames.cols() != coefficients.rows())
    throw core::InputError("LinearProjection::transform: expected " +
                           std::to_string(coefficients.rows()) + " feature columns, got " +
                           std::to_string(frames.cols()));
  // Centre chunk by chunk: exact for large offsets, without an n x d temporary.
  constexpr Eigen::Index kChunk = 4096;
  FrameMatrix out(frames.rows(), coefficients.cols());
  for (Eigen::Index t0 = 0; t0 < frames.rows(); t0 += kChunk) {
    const Eigen::Index c = std::min(kChunk, frames.rows() - t0);
    const FrameMatrix centred = frames.middleRows(t0, c).rowwise() - mean.transpose();
    out.middleRows(t0, c).noalias() = centred * coefficients;
  }
  return out;
}

std::vector<double> LinearProjection::to_flat() const {
  std::vector<double> f;
  f.reserve(3 + static_cast<std::size_t>(mean.size() + coefficients.size()));
  f.push_back(1.0);
  f.push_back(static_cast<double>(coefficients.rows()));
  f.push_back(static_cast<double>(coefficients.cols()));
  f.insert(f.end(), mean.data(), mean.data() + mean.size());
  f.insert(f.end(), coefficients.data(), coefficients.data() + coefficients.size());
  return f;
}

LinearProjection LinearProjection::from_flat(std::span<const double> flat) {
  auto bad = [](const std::string& why) {
    return core::InputError("LinearProjection::from_flat: " + why);
  };
  if (flat.size() < 3) throw bad("expected at least 3 values, got " + std::to_string(flat.size()));
  if (flat[0] != 1.0) throw bad("unknown state version " + std::to_string(flat[0]));
  const double d = flat[1], k = flat[2];
  if (!(d >= 1 && d <= 1e6 && d == std::floor(d)) || !(k >= 0 && k <= d && k == std::floor(k)))
    throw bad("bad sizes d = " + std::to_string(d) + ", k = " + std::to_string(k));
  const auto ud = static_cast<std::size_t>(d), uk = static_cast<std::size_t>(k);
  if (flat.size() != 3 + ud + ud * uk)
    throw bad("expected " + std::to_string(3 + ud + ud * uk) + " values, got " +
              std::to_string(flat.size()));
  LinearProjection p;
  p.mean = Eigen::Map<const Eigen::VectorXd>(flat.data() + 3, static_cast<Eigen::Index>(ud));
  p.coefficients = Eigen::Map<const Eigen::MatrixXd>(
      flat.data() + 3 + ud, static_cast<Eigen::Index>(ud), static_cast<Eigen::Index>(uk));
  return p;
}

}  // namespace trails::analysis
