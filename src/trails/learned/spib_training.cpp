// SPIB with self-consistent relabelling (docs/cvs.md, "spib"): an encoder MLP Linear → SiLU →
// Dropout with mean and log-variance heads, a predictor Linear(latent, 64) → SiLU →
// Linear(64, states) of the state at t+τ from x_t, loss cross-entropy + β·KL. Initial states
// from k-means; each refinement round relabels every frame by the predictor's most likely
// state at the encoder mean, drops unoccupied states and trains a fresh predictor. The CV is
// the encoder mean.
#include <map>

#include "trails/analysis/clustering.h"
#include "trails/learned/torch_support.h"
#include "trails/learned/trainers.h"

namespace trails::learned::detail {
namespace {

constexpr int kPredictorWidth = 64;
constexpr double kConverged = 0.01;  // label change below which refinement stops

torch::nn::Sequential predictor(int latent, int n_states) {
  torch::nn::Sequential p;
  p->push_back(KernelLinear(latent, kPredictorWidth));
  p->push_back(torch::nn::SiLU());
  p->push_back(KernelLinear(kPredictorWidth, n_states));
  return p;
}

// States renumbered 0..k-1 in order of first appearance of their ids sorted ascending
// (unoccupied ids disappear); returns k.
int renumber(std::vector<std::int64_t>& labels) {
  std::map<std::int64_t, std::int64_t> ids;
  for (std::int64_t l : labels) ids.emplace(l, 0);
  std::int64_t next = 0;
  for (auto& [id, to] : ids) to = next++;
  for (std::int64_t& l : labels) l = ids.at(l);
  return static_cast<int>(next);
}

struct Encoder {
  torch::nn::Sequential body;
  KernelLinear mean, logvar;
  std::vector<torch::Tensor> parameters() const {
    std::vector<torch::Tensor> p = body->parameters();
    for (const auto& t : mean->parameters()) p.push_back(t);
    for (const auto& t : logvar->parameters()) p.push_back(t);
    return p;
  }
  void train(bool on) {
    body->train(on);
    mean->train(on);
    logvar->train(on);
  }
};

}  // namespace

std::vector<std::int64_t> spib_initial_labels(const ModelOptions& options,
                                              const TrainingData& data) {
  const std::int64_t n_rows = data.n_rows();
  analysis::KMeansOptions km;
  km.k = static_cast<int>(
      std::max<std::int64_t>(2, std::min<std::int64_t>(options.spib_n_states, n_rows)));
  km.max_iter = 100;
  km.seed = options.seed;
  km.n_threads = options.threads;
  const auto points = analysis::points_view(data.rows, n_rows, data.n_features);
  const std::vector<int> assigned =
      analysis::assign(analysis::kmeans(points, km), points, options.threads);
  std::vector<std::int64_t> labels(assigned.begin(), assigned.end());
  renumber(labels);
  return labels;
}

Network train_spib(const ModelOptions& options, const TrainingData& data, TrainingRecord& record) {
  const std::int64_t n_rows = data.n_rows();
  std::vector<std::int64_t> labels = spib_initial_labels(options, data);
  int n_states = renumber(labels);
  record.spib_initial_states = n_states;

  TrainingScope scope(options);
  const torch::Tensor x = rows_tensor(data);
  const PairIndex pairs = pair_index(data);
  const auto n_pairs = static_cast<std::int64_t>(data.pairs.size());
  const int width =
      options.encoder_hidden_dims.empty() ? data.n_features : options.encoder_hidden_dims.back();
  Encoder encoder{mlp(data.n_features, options.encoder_hidden_dims, std::nullopt, Activation::Silu,
                      false, options.dropout_rate),
                  KernelLinear(width, options.latent_dim), KernelLinear(width, options.latent_dim)};

  auto train_round = [&](torch::nn::Sequential& pred) {
    const torch::Tensor targets =
        torch::from_blob(labels.data(), {n_rows}, torch::kInt64).index_select(0, pairs.lagged);
    std::vector<torch::Tensor> params = encoder.parameters();
    for (const auto& t : pred->parameters()) params.push_back(t);
    encoder.train(true);
    pred->train();
    train_on_pairs(
        params, options, n_pairs, true,
        [&](const torch::Tensor& batch) {
          const auto h = encoder.body->forward(x.index_select(0, pairs.t.index_select(0, batch)));
          const auto mu = encoder.mean->forward(h), logvar = encoder.logvar->forward(h);
          const auto z = mu + torch::randn_like(mu) * torch::exp(0.5 * logvar);
          return torch::cross_entropy_loss(pred->forward(z), targets.index_select(0, batch)) +
                 options.spib_beta * kl_to_standard_normal(mu, logvar);
        },
        record);
  };

  torch::nn::Sequential pred = predictor(options.latent_dim, n_states);
  train_round(pred);
  for (int round = 0; round < options.spib_refine_rounds; ++round) {
    encoder.train(false);
    pred->eval();
    torch::Tensor relabelled;
    {
      torch::NoGradGuard no_grad;
      relabelled = pred->forward(encoder.mean->forward(encoder.body->forward(x))).argmax(1);
    }
    const auto* p = relabelled.data_ptr<std::int64_t>();
    std::int64_t changed = 0;
    for (std::int64_t i = 0; i < n_rows; ++i)
      changed += p[i] != labels[static_cast<std::size_t>(i)];
    const double change = static_cast<double>(changed) / static_cast<double>(n_rows);
    record.spib_label_changes.push_back(change);
    labels.assign(p, p + n_rows);
    n_states = renumber(labels);
    // Self-consistent labels, or one state left (nothing to predict): the model is final.
    if (change < kConverged || n_states < 2) break;
    pred = predictor(options.latent_dim, n_states);
    train_round(pred);
  }
  record.spib_final_states = n_states;

  encoder.train(false);
  Network out;
  out.n_in = data.n_features;
  append_layers(encoder.body, out);
  append_linear(*encoder.mean, out);
  return out;
}

}  // namespace trails::learned::detail
