// Learned CV models on libtorch (docs/cvs.md, "Learned spaces"): the time-lagged autoencoder
// (tvae), the VAMPNet (vampnet), SPIB with self-consistent relabelling (spib) and Deep-TICA
// (deep-tica). Pure numerics on feature rows: no files, no config, no logging; the space stage
// (spaces/) builds the training data from its feature memory and owns when to train.
// torch types never appear in this header, so only learned/*.cpp include libtorch.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trails::learned {

// Hyper-parameters, with Trails-MD's keys and defaults (docs/cvs.md lists each key).
struct ModelOptions {
  std::string kind = "tvae";  // tvae | vampnet | spib | deep-tica
  int latent_dim = 1;         // the learned CV's dimension (len(n_bins))
  std::vector<int> encoder_hidden_dims{256, 128};
  std::vector<int> decoder_hidden_dims{128, 256};    // tvae only
  std::vector<int> deep_tica_hidden_dims{256, 128};  // deep-tica only (in place of encoder's)
  double dropout_rate = 0.1;
  double learning_rate = 5e-4;
  int epochs = 50;
  std::optional<int> batch_size;  // nullopt: `auto`, all training pairs in one batch
  double tvae_beta = 1.0;
  int spib_n_states = 10;
  double spib_beta = 1e-3;
  int spib_refine_rounds = 5;
  std::uint64_t seed = 0;  // initial weights, dropout, shuffling, k-means: one keyed stream
  int threads = 1;         // torch intra-op threads while training (results depend on it)
};

// What a model is trained on: feature rows (already scaled) and the time-lagged pairs
// (row t, row t+lag). The pairs never cross a walker segment or a failed walker's gap: the
// caller builds them from exact frame records (lagged_pairs below).
struct TrainingData {
  int n_features = 0;
  std::vector<double> rows;  // n_rows × n_features, row-major
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs;
  std::int64_t n_rows() const {
    return n_features > 0 ? static_cast<std::int64_t>(rows.size()) / n_features : 0;
  }
};

// The pairs (i, i+lag) inside each segment, for segments given as consecutive row counts
// (walker-major, the features::FrameHistory order). A segment shorter than lag+1 gives none.
std::vector<std::pair<std::int64_t, std::int64_t>> lagged_pairs(
    std::span<const std::int64_t> segment_rows, int lag);

// The training record kept in the ledger with the iteration that trained the model.
struct TrainingRecord {
  int epochs_run = 0;
  std::vector<double> loss;                // mean training loss per epoch (all rounds, in order)
  std::optional<double> vamp2;             // VAMP-2 of the learned CV on the training pairs
  std::vector<double> spib_label_changes;  // per refinement round, fractions in [0, 1]
  std::optional<int> spib_initial_states;
  std::optional<int> spib_final_states;
  nlohmann::json to_json() const;
  static TrainingRecord from_json(const nlohmann::json& j);
};

class Model {
 public:
  virtual ~Model() = default;
  virtual const std::string& kind() const = 0;
  virtual int n_features() const = 0;
  virtual int dim() const = 0;
  // Row-wise, in evaluation mode: n × n_features → n × dim. A row's CV does not depend on the
  // other rows projected with it. (VAMPNet: the lobe's output, which is what its CV is; SPIB:
  // the encoder mean; TVAE: the encoder mean; Deep-TICA: the TICA-projected network output.)
  virtual std::vector<double> project(std::span<const double> rows) const = 0;
  // Versioned bytes that load() reads back to a model that projects bitwise the same.
  virtual std::string serialize() const = 0;
  // A TorchScript module (.pt) that PyTorch loads with torch.jit.load: forward(x) = project(x).
  virtual void export_torchscript(const std::filesystem::path& file) const = 0;
};

// Trains a model of options.kind; deterministic for a fixed seed and thread count. Throws
// core::Error for unusable data (no pairs, fewer rows than the latent dimension).
std::unique_ptr<Model> train(const ModelOptions& options, const TrainingData& data,
                             TrainingRecord& record);
// Reads what Model::serialize wrote; throws core::Error naming what is wrong.
std::unique_ptr<Model> load(std::string_view bytes);

}  // namespace trails::learned
