#include "trails/learned/network.h"

#include <fmt/format.h>

#include <Eigen/Core>
#include <algorithm>
#include <cmath>

#include "trails/core/error.h"
#include "trails/core/thread_pool.h"

namespace trails::learned {

std::string layer_type_name(LayerType type) {
  switch (type) {
    case LayerType::Linear:
      return "linear";
    case LayerType::Affine:
      return "affine";
    case LayerType::Silu:
      return "silu";
    case LayerType::Relu:
      return "relu";
  }
  return "unknown";
}

void Network::validate() const {
  if (n_in < 1) throw core::CorruptionError("learned model: network input size < 1");
  int width = n_in;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const Layer& l = layers[i];
    auto bad = [&](const std::string& what) {
      return core::CorruptionError(
          fmt::format("learned model: layer {} ({}): {}", i, layer_type_name(l.type), what));
    };
    if (l.in != width)
      throw bad(fmt::format("takes {} inputs, the layer before gives {}", l.in, width));
    if (l.out < 1) throw bad("output size < 1");
    std::size_t n_weight = 0, n_bias = 0;
    switch (l.type) {
      case LayerType::Linear:
        n_weight = static_cast<std::size_t>(l.out) * static_cast<std::size_t>(l.in);
        n_bias = static_cast<std::size_t>(l.out);
        break;
      case LayerType::Affine:
        n_weight = n_bias = static_cast<std::size_t>(l.out);
        [[fallthrough]];
      case LayerType::Silu:
      case LayerType::Relu:
        if (l.in != l.out) throw bad("element-wise layer changes the size");
        break;
    }
    if (l.weight.size() != n_weight || l.bias.size() != n_bias)
      throw bad(fmt::format("{} weights and {} biases, expected {} and {}", l.weight.size(),
                            l.bias.size(), n_weight, n_bias));
    auto finite = [](const std::vector<double>& v) {
      return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
    };
    if (!finite(l.weight) || !finite(l.bias)) throw bad("non-finite parameter");
    width = l.out;
  }
}

namespace {

// One row through every layer; a and b are scratch vectors of the widest layer's size.
void forward_row(const Network& net, const double* x, double* y, Eigen::VectorXd& a,
                 Eigen::VectorXd& b) {
  a.head(net.n_in) = Eigen::Map<const Eigen::VectorXd>(x, net.n_in);
  for (const Layer& l : net.layers) {
    switch (l.type) {
      case LayerType::Linear: {
        Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> w(
            l.weight.data(), l.out, l.in);
        b.head(l.out).noalias() = w * a.head(l.in);
        b.head(l.out) += Eigen::Map<const Eigen::VectorXd>(l.bias.data(), l.out);
        std::swap(a, b);
        break;
      }
      case LayerType::Affine:
        for (int j = 0; j < l.out; ++j) a[j] = l.weight[j] * a[j] + l.bias[j];
        break;
      case LayerType::Silu:
        for (int j = 0; j < l.out; ++j) a[j] = a[j] / (1.0 + std::exp(-a[j]));
        break;
      case LayerType::Relu:
        for (int j = 0; j < l.out; ++j) a[j] = std::max(a[j], 0.0);
        break;
    }
  }
  std::copy_n(a.data(), net.n_out(), y);
}

}  // namespace

std::vector<double> Network::forward(std::span<const double> rows, int n_threads) const {
  if (rows.size() % static_cast<std::size_t>(n_in) != 0)
    throw core::InputError(
        fmt::format("learned model: {} values are not rows of {} features", rows.size(), n_in));
  const std::size_t n = rows.size() / static_cast<std::size_t>(n_in);
  const int out = n_out();
  int widest = n_in;
  for (const Layer& l : layers) widest = std::max(widest, l.out);
  std::vector<double> result(n * static_cast<std::size_t>(out));
  core::default_pool().parallel_for(
      n, 256,
      [&](std::size_t begin, std::size_t end) {
        Eigen::VectorXd a(widest), b(widest);
        for (std::size_t r = begin; r < end; ++r)
          forward_row(*this, rows.data() + r * static_cast<std::size_t>(n_in),
                      result.data() + r * static_cast<std::size_t>(out), a, b);
      },
      n_threads);
  return result;
}

void append_centred_linear(Network& net, std::span<const double> mean,
                           std::span<const double> w_rows, int k) {
  const int d = net.n_out();
  Layer l{LayerType::Linear, d, k, std::vector<double>(w_rows.begin(), w_rows.end()),
          std::vector<double>(static_cast<std::size_t>(k), 0.0)};
  for (int i = 0; i < k; ++i) {
    double s = 0.0;
    for (int j = 0; j < d; ++j) s += l.weight[static_cast<std::size_t>(i) * d + j] * mean[j];
    l.bias[i] = -s;
  }
  net.layers.push_back(std::move(l));
}

}  // namespace trails::learned
