// The time-lagged variational autoencoder (docs/cvs.md, "tvae"): encoder blocks Linear →
// BatchNorm1d → SiLU → Dropout, mean and log-variance heads, a decoder of the same blocks and a
// Linear output; trained to reconstruct x_{t+τ} from x_t. The CV is the encoder mean.
#include "trails/learned/torch_support.h"
#include "trails/learned/trainers.h"

namespace trails::learned::detail {
namespace {

struct TvaeImpl : torch::nn::Module {
  TvaeImpl(int n_features, const ModelOptions& o)
      : encoder(mlp(n_features, o.encoder_hidden_dims, std::nullopt, Activation::Silu, true,
                    o.dropout_rate)),
        mean(last_width(n_features, o.encoder_hidden_dims), o.latent_dim),
        logvar(last_width(n_features, o.encoder_hidden_dims), o.latent_dim),
        decoder(mlp(o.latent_dim, o.decoder_hidden_dims, n_features, Activation::Silu, true,
                    o.dropout_rate)) {
    register_module("encoder", encoder);
    register_module("mean", mean);
    register_module("logvar", logvar);
    register_module("decoder", decoder);
  }
  static int last_width(int in, const std::vector<int>& hidden) {
    return hidden.empty() ? in : hidden.back();
  }
  torch::nn::Sequential encoder;
  KernelLinear mean, logvar;
  torch::nn::Sequential decoder;
};
TORCH_MODULE(Tvae);

}  // namespace

Network train_tvae(const ModelOptions& options, const TrainingData& data, TrainingRecord& record) {
  TrainingScope scope(options);
  const torch::Tensor x = rows_tensor(data);
  const PairIndex pairs = pair_index(data);
  Tvae net(data.n_features, options);
  net->train();
  train_on_pairs(
      net->parameters(), options, static_cast<std::int64_t>(data.pairs.size()), false,
      [&](const torch::Tensor& batch) {
        const auto xt = x.index_select(0, pairs.t.index_select(0, batch));
        const auto target = x.index_select(0, pairs.lagged.index_select(0, batch));
        const auto h = net->encoder->forward(xt);
        const auto mu = net->mean->forward(h), logvar = net->logvar->forward(h);
        const auto z = mu + torch::randn_like(mu) * torch::exp(0.5 * logvar);
        const auto reconstruction = torch::mse_loss(net->decoder->forward(z), target);
        return reconstruction + options.tvae_beta * kl_to_standard_normal(mu, logvar) /
                                    static_cast<double>(data.n_features);
      },
      record);
  net->eval();
  Network out;
  out.n_in = data.n_features;
  append_layers(net->encoder, out);
  append_linear(*net->mean, out);
  return out;
}

}  // namespace trails::learned::detail
