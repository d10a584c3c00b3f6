// Deep-TICA (docs/cvs.md, "deep-tica"): a feed-forward network [in, *deep_tica_hidden_dims,
// latent] with ReLU and no dropout (mlcolvar's FeedForward defaults) trained to maximise the sum of
// the squared TICA eigenvalues of its output on shuffled batches; then TICA (analysis/tica.h, no
// scaling) of the trained network's output on all training pairs. The CV is that TICA projection.
#include <fmt/format.h>

#include "trails/analysis/tica.h"
#include "trails/core/error.h"
#include "trails/learned/pair_covariances.h"
#include "trails/learned/torch_support.h"
#include "trails/learned/trainers.h"

namespace trails::learned::detail {

Network train_deep_tica(const ModelOptions& options, const TrainingData& data,
                        TrainingRecord& record) {
  Network out;
  out.n_in = data.n_features;
  {
    TrainingScope scope(options);
    const torch::Tensor x = rows_tensor(data);
    const PairIndex pairs = pair_index(data);
    torch::nn::Sequential net = mlp(data.n_features, options.deep_tica_hidden_dims,
                                    options.latent_dim, Activation::Relu, false, 0.0);
    net->train();
    train_on_pairs(
        net->parameters(), options, static_cast<std::int64_t>(data.pairs.size()), true,
        [&](const torch::Tensor& batch) {
          const auto y0 = net->forward(x.index_select(0, pairs.t.index_select(0, batch)));
          const auto yt = net->forward(x.index_select(0, pairs.lagged.index_select(0, batch)));
          return -tica_eigenvalues(y0, yt).pow(2).sum();
        },
        record);
    net->eval();
    append_layers(net, out);
  }
  // TICA of the network's output, in double precision on every training pair.
  const std::vector<double> y = out.forward(data.rows);
  const int d = out.n_out();
  analysis::TicaOptions tica_options;
  tica_options.dim = options.latent_dim;
  tica_options.scaling = analysis::TicaScaling::None;
  const analysis::TicaModel tica =
      analysis::fit_tica(pair_covariances(y, d, data.pairs, true), tica_options);
  if (tica.dim < options.latent_dim)
    throw core::InputError(fmt::format(
        "learned model deep-tica: the trained network's output has rank {} < latent_dim {}; "
        "lower learning_rate or latent_dim",
        tica.dim, options.latent_dim));
  const Eigen::MatrixXd& c = tica.projection.coefficients;  // d × k
  std::vector<double> w_rows(static_cast<std::size_t>(c.size()));
  for (int i = 0; i < c.cols(); ++i)
    for (int j = 0; j < d; ++j) w_rows[static_cast<std::size_t>(i) * d + j] = c(j, i);
  append_centred_linear(out, std::span(tica.projection.mean.data(), d), w_rows,
                        static_cast<int>(c.cols()));
  return out;
}

}  // namespace trails::learned::detail
