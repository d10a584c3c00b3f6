// The model strategy of a learned space (SpaceStage): how a space_mode turns the training memory
// into a map from feature rows to CVs. Linear spaces (pca | tica) fit on the memory's moments;
// neural spaces (tvae | vampnet | spib | deep-tica, learned/model.h) train on the memory blocks'
// feature rows and their time-lagged pairs inside each walker segment. Both see MinMax-scaled,
// column-selected features (compat:feature-scaling, compat:vamp-column-selection) and project
// raw feature rows of every column, row-wise: a row's CVs do not depend on the other rows.
// A TrainingSet owns what it holds, so a neural model may train on another thread while the
// stage moves on (docs/cvs.md, "When a new model takes effect").
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "trails/analysis/moments.h"
#include "trails/config/campaign_config.h"  // LearnedModelConfig only
#include "trails/learned/model.h"
#include "trails/spaces/space_moments.h"

namespace trails::spaces {

// What one retrain sees.
struct TrainingSet {
  std::int64_t iteration = 0;  // the iteration whose decision asked for it (keys the seed)
  int n_features = 0;          // all columns of the feature type
  int dim = 1;                 // learned dimensions (len(n_bins))
  int lagtime = 1;             // frames (adaptive_model.lagtime)
  std::vector<int> columns;    // selected columns (all when there is no selection), sorted
  std::vector<double> lo;      // MinMax range of the training memory, per column of all
  std::vector<double> scale;   // n_features; a constant column keeps scale 1
  // Linear spaces: the merged memory's moments at the lag (instantaneous ones for PCA).
  std::optional<SpaceMoments> moments;
  // Neural spaces: the memory blocks' rows, scaled and restricted to `columns`
  // (n × columns.size(), in memory order), and their walker segments' lengths in row order.
  std::vector<double> rows;
  std::vector<std::int64_t> segments;
};

// A fitted space: raw feature rows (n × n_features) → CVs (n × dim).
class SpaceModel {
 public:
  virtual ~SpaceModel() = default;
  virtual int n_features() const = 0;  // columns of a raw feature row
  virtual int dim() const = 0;
  // Rows on at most n_threads threads of core::default_pool() (0: all; a neural network uses
  // all); each row's CVs are computed alone, so they do not depend on the thread count.
  virtual std::vector<double> project(std::span<const double> features, int n_threads) const = 0;
  // VAMP-2 of the model's CVs on one iteration's block (retrain_policy vamp_adaptive): its
  // feature rows, their walker segment lengths and their moments at the lag (a linear model
  // needs the non-symmetric lagged moments: from `moments` when it keeps RunningMoments, else
  // computed here from the rows).
  virtual std::optional<double> score(std::span<const double> features,
                                      std::span<const std::int64_t> segments,
                                      const SpaceMoments& moments) const = 0;
  // JSON for the ledger's space state; a neural model's weights are bytes() instead.
  virtual nlohmann::json state() const = 0;
  // Versioned weights (learned::Model::serialize) with the scaling folded around them in
  // state(); empty for linear models, which state() holds whole.
  virtual std::string bytes() const { return {}; }
  // The network as TorchScript (.pt): forward(x') on scaled, column-selected rows
  // x' = (x[:, columns] - min_values) / scale (the scaling is in state()). Throws
  // core::UsageError for a linear model, which has no network.
  virtual void export_torchscript(const std::filesystem::path& file) const;
};

// One table of space_modes: pca | tica (linear), tvae | vampnet | spib | deep-tica (neural).
class SpaceTrainer {
 public:
  virtual ~SpaceTrainer() = default;
  // Neural trainers need the memory blocks' rows; linear ones their moments.
  virtual bool needs_rows() const = 0;
  // Whether a retrain that is not the first may run during the next iteration's MD (and so
  // take effect one iteration later); linear fits are immediate.
  virtual bool overlaps_md() const = 0;
  virtual std::unique_ptr<SpaceModel> train(const TrainingSet& set,
                                            learned::TrainingRecord& record) const = 0;
  // The model whose state() (and, for neural spaces, bytes()) this is.
  virtual std::unique_ptr<SpaceModel> restore(const nlohmann::json& state,
                                              const std::string& bytes) const = 0;
};

bool is_neural_space(const std::string& mode);
// A stored model back from the ledger (trails export --model, trails project): the `space`
// element of an iteration and, for a neural space, the `space_model` element its
// model_iteration names (nullptr for linear spaces). Throws core::CorruptionError for
// elements this Trails cannot read, core::UsageError when the state holds no model yet.
std::unique_ptr<SpaceModel> load_space_model(const nlohmann::json& space_state,
                                             const nlohmann::json* model_element);
// The weights in a "space_model" ledger element (SpaceStage::new_model); throws
// core::CorruptionError for an element of another version or without weights.
std::string model_weights(const nlohmann::json& element);
// `seed` is the campaign's random_seed; each retrain draws its own from (seed, iteration).
std::unique_ptr<SpaceTrainer> make_space_trainer(const std::string& mode,
                                                 const config::LearnedModelConfig& model,
                                                 std::uint64_t seed);

}  // namespace trails::spaces
