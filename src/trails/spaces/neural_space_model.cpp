// The neural spaces (space_mode tvae | vampnet | spib | deep-tica): a learned::Model trained on
// the memory blocks' scaled, column-selected feature rows and their time-lagged pairs inside
// each walker segment (never across walkers or a failed walker's gap: fix:walker-segment-pairs),
// with the scaling kept beside the network so that raw feature rows project.
#include <Eigen/Core>

#include "trails/analysis/vamp.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"
#include "trails/spaces/space_model.h"
#include "trails/spaces/space_trainers.h"

namespace trails::spaces {
namespace {

using analysis::RunningMoments;

class NeuralSpaceModel final : public SpaceModel {
 public:
  NeuralSpaceModel(std::unique_ptr<learned::Model> net, int n_features, std::vector<int> columns,
                   std::vector<double> lo, std::vector<double> scale, int lagtime)
      : net_(std::move(net)),
        n_all_(n_features),
        columns_(std::move(columns)),
        lo_(std::move(lo)),
        scale_(std::move(scale)),
        lagtime_(lagtime) {
    TRAILS_CHECK(static_cast<int>(columns_.size()) == net_->n_features() &&
                     lo_.size() == columns_.size() && scale_.size() == columns_.size(),
                 "a neural space's scaling matches its network's inputs");
  }
  int n_features() const override { return n_all_; }
  int dim() const override { return net_->dim(); }

  std::vector<double> project(std::span<const double> features, int /*n_threads*/) const override {
    if (features.empty()) return {};
    const std::size_t c = columns_.size();
    const auto d = static_cast<std::size_t>(n_all_);
    const std::size_t n = features.size() / d;
    std::vector<double> x(n * c);
    for (std::size_t r = 0; r < n; ++r) {
      for (std::size_t i = 0; i < c; ++i) {
        const auto col = static_cast<std::size_t>(columns_[i]);
        x[r * c + i] = (features[r * d + col] - lo_[i]) / scale_[i];
      }
    }
    return net_->project(x);
  }

  std::optional<double> score(std::span<const double> features,
                              std::span<const std::int64_t> segments,
                              const SpaceMoments& /*moments*/) const override {
    // The VAMP-2 of the CVs themselves: the network is not linear, so its CVs' covariances do
    // not follow from the features' moments.
    const auto y = project(features, 0);
    const int k = dim();
    RunningMoments m(k, lagtime_);
    Eigen::Map<const analysis::FrameMatrix> cvs(y.data(), static_cast<Eigen::Index>(y.size()) / k,
                                                k);
    m.add_segments(cvs, std::vector<std::int64_t>(segments.begin(), segments.end()));
    if (m.n_pairs() == 0) return std::nullopt;
    return analysis::vamp2_score(m.lagged({analysis::MeanRemoval::Separate, false}));
  }

  nlohmann::json state() const override {
    return {{"kind", net_->kind()}, {"n_features", n_all_}, {"columns", columns_},
            {"min_values", lo_},    {"scale", scale_},      {"lagtime", lagtime_}};
  }
  std::string bytes() const override { return net_->serialize(); }
  void export_torchscript(const std::filesystem::path& file) const override {
    net_->export_torchscript(file);
  }

 private:
  std::unique_ptr<learned::Model> net_;
  int n_all_;  // feature columns of a raw row
  std::vector<int> columns_;
  std::vector<double> lo_, scale_;  // of the selected columns
  int lagtime_;
};

class NeuralTrainer final : public SpaceTrainer {
 public:
  NeuralTrainer(std::string mode, const config::LearnedModelConfig& m, std::uint64_t seed)
      : seed_(seed) {
    o_.kind = std::move(mode);
    o_.encoder_hidden_dims = m.encoder_hidden_dims;
    o_.decoder_hidden_dims = m.decoder_hidden_dims;
    o_.deep_tica_hidden_dims = m.deep_tica_hidden_dims;
    o_.dropout_rate = m.dropout_rate;
    o_.learning_rate = m.learning_rate;
    o_.epochs = m.epochs;
    o_.batch_size = m.batch_size;
    o_.tvae_beta = m.tvae_beta;
    o_.spib_n_states = m.spib_n_states;
    o_.spib_beta = m.spib_beta;
    o_.spib_refine_rounds = m.spib_refine_rounds;
    // One intra-op thread: the trained bits depend on the thread count, which must not depend
    // on the machine; training overlaps MD, which owns the cores.
    o_.threads = 1;
  }
  bool needs_rows() const override { return true; }
  bool overlaps_md() const override { return true; }

  std::unique_ptr<SpaceModel> train(const TrainingSet& set,
                                    learned::TrainingRecord& record) const override {
    learned::ModelOptions o = o_;
    o.latent_dim = set.dim;
    o.seed = core::Rng::stream(seed_, "space-model", static_cast<std::uint64_t>(set.iteration))
                 .next_u64();
    learned::TrainingData data;
    data.n_features = static_cast<int>(set.columns.size());
    data.rows = set.rows;
    data.pairs = learned::lagged_pairs(set.segments, set.lagtime);
    std::vector<double> lo, scale;
    for (const int c : set.columns) {
      lo.push_back(set.lo[static_cast<std::size_t>(c)]);
      scale.push_back(set.scale[static_cast<std::size_t>(c)]);
    }
    return std::make_unique<NeuralSpaceModel>(learned::train(o, data, record), set.n_features,
                                              set.columns, std::move(lo), std::move(scale),
                                              set.lagtime);
  }

  std::unique_ptr<SpaceModel> restore(const nlohmann::json& state,
                                      const std::string& bytes) const override {
    auto net = learned::load(bytes);
    if (net->kind() != o_.kind) {
      throw core::CorruptionError("ledger state: the stored model is a " + net->kind() +
                                  " network, the campaign's space_mode is " + o_.kind);
    }
    return std::make_unique<NeuralSpaceModel>(std::move(net), state.at("n_features").get<int>(),
                                              state.at("columns").get<std::vector<int>>(),
                                              state.at("min_values").get<std::vector<double>>(),
                                              state.at("scale").get<std::vector<double>>(),
                                              state.at("lagtime").get<int>());
  }

 private:
  learned::ModelOptions o_;
  std::uint64_t seed_;
};

}  // namespace

std::unique_ptr<SpaceTrainer> make_neural_trainer(const std::string& mode,
                                                  const config::LearnedModelConfig& model,
                                                  std::uint64_t seed) {
  return std::make_unique<NeuralTrainer>(mode, model, seed);
}

void SpaceModel::export_torchscript(const std::filesystem::path& /*file*/) const {
  throw core::UsageError(
      "a linear space (pca | tica) has no network to export: its projection (mean and "
      "coefficients) is the `projection` of the ledger's space state");
}

std::unique_ptr<SpaceModel> load_space_model(const nlohmann::json& space_state,
                                             const nlohmann::json* model_element) {
  const std::string mode = space_state.value("mode", "");
  if (mode != "pca" && mode != "tica" && !is_neural_space(mode)) {
    throw core::CorruptionError("ledger state: unknown learned space '" + mode + "'");
  }
  const auto trainer = make_space_trainer(mode, {}, 0);
  if (!is_neural_space(mode)) {
    if (space_state.at("projection").is_null()) {
      throw core::UsageError("the learned space has no model yet at this iteration");
    }
    return trainer->restore(space_state.at("projection"), {});
  }
  if (space_state.at("model").is_null()) {
    throw core::UsageError("the learned space has no model yet at this iteration");
  }
  TRAILS_CHECK(model_element != nullptr, "a neural space loads with its space_model element");
  return trainer->restore(space_state.at("model"), model_weights(*model_element));
}

bool is_neural_space(const std::string& mode) {
  return mode == "tvae" || mode == "vampnet" || mode == "spib" || mode == "deep-tica";
}

std::unique_ptr<SpaceTrainer> make_space_trainer(const std::string& mode,
                                                 const config::LearnedModelConfig& model,
                                                 std::uint64_t seed) {
  if (mode == "pca" || mode == "tica") return make_linear_trainer(mode);
  TRAILS_CHECK(is_neural_space(mode), "space_mode is pca, tica, tvae, vampnet, spib or deep-tica");
  return make_neural_trainer(mode, model, seed);
}

}  // namespace trails::spaces
