// The VAMPNet (docs/cvs.md, "vampnet"): one lobe, an MLP [in, *encoder_hidden_dims, latent]
// with SiLU, applied to both x_t and x_{t+τ} and trained to maximise the VAMP-2 score of the
// pair on shuffled batches. The CV is the lobe's raw output (no softmax: not soft states).
#include "trails/learned/torch_support.h"
#include "trails/learned/trainers.h"

namespace trails::learned::detail {

Network train_vampnet(const ModelOptions& options, const TrainingData& data,
                      TrainingRecord& record) {
  TrainingScope scope(options);
  const torch::Tensor x = rows_tensor(data);
  const PairIndex pairs = pair_index(data);
  torch::nn::Sequential lobe = mlp(data.n_features, options.encoder_hidden_dims, options.latent_dim,
                                   Activation::Silu, false, 0.0);
  lobe->train();
  train_on_pairs(
      lobe->parameters(), options, static_cast<std::int64_t>(data.pairs.size()), true,
      [&](const torch::Tensor& batch) {
        const auto x0 = lobe->forward(x.index_select(0, pairs.t.index_select(0, batch)));
        const auto xt = lobe->forward(x.index_select(0, pairs.lagged.index_select(0, batch)));
        return -vamp2_score(x0, xt);
      },
      record);
  lobe->eval();
  Network out;
  out.n_in = data.n_features;
  append_layers(lobe, out);
  return out;
}

}  // namespace trails::learned::detail
