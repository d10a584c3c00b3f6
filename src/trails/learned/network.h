// The evaluation-mode network of a trained learned model, in double precision and without
// torch: what project() runs, what serialize() writes and what export_torchscript() rebuilds.
// Training (learned/*_training.cpp) produces it from the torch modules: BatchNorm1d becomes an
// affine layer with its running statistics, Dropout disappears (identity in evaluation mode).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

namespace trails::learned {

enum class LayerType {
  Linear,  // y = W x + b, W out × in row-major
  Affine,  // y = scale ⊙ x + shift (evaluation-mode batch normalisation)
  Silu,    // y = x · sigmoid(x)
  Relu,    // y = max(x, 0)
};

struct Layer {
  LayerType type = LayerType::Linear;
  int in = 0, out = 0;
  std::vector<double> weight;  // Linear: out × in; Affine: scale (out)
  std::vector<double> bias;    // Linear, Affine: out
};

struct Network {
  int n_in = 0;
  std::vector<Layer> layers;
  int n_out() const { return layers.empty() ? n_in : layers.back().out; }
  // Checks the layer chain (sizes, parameter counts, finite values); throws core::Error
  // (Corruption) naming the first bad layer.
  void validate() const;
  // Row-wise: n × n_in → n × n_out. Each row is computed alone (matrix-vector products of a
  // fixed order), so its result does not depend on the other rows or on n_threads.
  std::vector<double> forward(std::span<const double> rows, int n_threads = 1) const;
};

std::string layer_type_name(LayerType type);

// Appends y = W (x − mean) as a Linear layer (W k × n_out row-major): the Deep-TICA projection.
void append_centred_linear(Network& net, std::span<const double> mean,
                           std::span<const double> w_rows, int k);

}  // namespace trails::learned
