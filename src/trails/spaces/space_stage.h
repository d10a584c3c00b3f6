// The learned CV space of a campaign (space_mode pca | tica | tvae | vampnet | spib | deep-tica;
// compat:learned-space).
// Features come from a features::FeatureSource: the particle coordinates for the built-in engine, a
// molecular feature type (distances | fitted_coords | phi_psi) for OpenMM; the learned space has
// len(n_bins) dimensions. Each iteration's features feed one memory block (SpaceMoments over
// the walker segments with exact frame counts, in the run's recorded moments algorithm, plus
// the feature range); the bounded training
// memory keeps a pruned list of such blocks. On a retrain (RetrainController) the features are
// MinMax-scaled with the training range (compat:feature-scaling), optionally restricted to
// VAMP-2-selected columns (compat:vamp-column-selection), the space's model (space_model.h: PCA /
// TICA on the merged memory's moments, a neural network on the memory blocks' feature rows) is
// trained, every stored frame is re-projected and the grid box becomes the data bounds ±10 % of
// their span. A neural retrain that is not the first is prepared at its iteration k, trains
// while iteration k+1's MD runs (start_training) and takes effect in iteration k+1's
// add_iteration, whatever the timing (docs/cvs.md, "When a new model takes effect"). With
// feature_selection.candidate_feature_types, the feature type is ranked by VAMP-2 on the current
// iteration (compat:feature-type-ranking); a switch recomputes every stored block in the new type
// (the history through a FrameLoader) and forces a refit. Everything that carries across iterations
// is in state(), so a resumed campaign reproduces the uninterrupted one bit for bit.
// features::Projection is row-wise in a fixed summation order, so a frame's learned CVs do not
// depend on how many frames are projected together.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "trails/analysis/linear_projection.h"
#include "trails/analysis/moments.h"
#include "trails/analysis/retraining.h"
#include "trails/binning/uniform_grid.h"
#include "trails/config/campaign_config.h"  // LearnedSpaceConfig only
#include "trails/features/feature_source.h"
#include "trails/features/frame_history.h"
#include "trails/spaces/feature_rows.h"
#include "trails/spaces/space_model.h"

namespace trails::spaces {

// What a learned space is configured with (the campaign fills it from its configuration).
struct SpaceOptions {
  std::string mode = "tica";           // space_mode: pca | tica | tvae | vampnet | spib | deep-tica
  config::LearnedSpaceConfig learned;  // retraining, memory, lag, feature selection, networks
  std::uint64_t seed = 0;              // random_seed: memory pruning, each network's training
  int dim = 1;                         // learned dimensions (len(n_bins))
  // The memory's moments algorithm of a new run (nullopt: reversible for tica, running for pca;
  // a resumed run keeps the one its state records). Benchmarks and tests set it.
  std::optional<MomentsAlgorithm> moments;
  int threads = 0;  // at most this many threads of core::default_pool() for moments (0: all)
};

class SpaceStage {
 public:
  // The committed frames of one iteration (ok walkers' frames in walker order, as in its shard):
  // positions n_frames × n_atoms × spatial_dim and boxes n_frames × 9 or empty.
  struct Frames {
    std::vector<double> positions;
    std::vector<double> boxes;
  };
  using FrameLoader = std::function<Frames(std::int64_t iteration,
                                           std::span<const features::FrameHistory::WalkerSpan>)>;

  // The ledger element new_model() wrote with `iteration` (a neural model's weights and record).
  using ModelLoader = std::function<nlohmann::json(std::int64_t iteration)>;

  // `source` must outlive the stage; `loader` is needed only when the feature type can change.
  // Throws core::ConfigError (naming n_bins) when len(n_bins) exceeds the feature count.
  SpaceStage(const SpaceOptions& options, const features::FeatureSource& source,
             FrameLoader loader = {});
  // Features = n_features coordinates per frame (built-in engine, tests).
  SpaceStage(const SpaceOptions& options, int n_features);
  ~SpaceStage();  // waits for a training still running

  int n_features() const { return d_; }  // of the current feature type
  const std::string& feature_type() const { return type_; }
  int dim() const { return k_; }
  bool has_model() const { return model_ != nullptr; }
  std::int64_t space_version() const { return version_; }  // fits so far
  // Selected feature columns (sorted), or nullopt before the first selection / without one.
  const std::optional<std::vector<int>>& selected_columns() const { return columns_; }

  // One iteration's frames (Σ spans frames, walker-major, the features::FrameHistory order):
  // computes its features, updates the memory, ranks feature types and retrains if due, and returns
  // the iteration's learned CVs (Σ spans × dim). After it, retrained() tells whether all history
  // was re-projected and latest_features() holds the iteration's feature rows.
  std::vector<double> add_iteration(std::int64_t iteration,
                                    std::span<const features::FrameHistory::WalkerSpan> spans,
                                    std::span<const double> frames,
                                    std::span<const double> boxes = {});
  bool retrained() const { return retrained_; }
  std::span<const double> latest_features() const { return blocks_.back().features; }

  // A neural retrain prepared by the last add_iteration starts on a background thread (call it
  // when the next iteration's MD starts); nothing otherwise. The result is the same whether it
  // runs then or inside the next add_iteration.
  void start_training();
  // The iteration whose decision prepared a retrain that has not taken effect yet.
  std::optional<std::int64_t> pending_training() const { return pending_; }

  // The set a retrain decided at the last added iteration would train on (for neural spaces:
  // the memory blocks' scaled rows and their exact walker segments).
  TrainingSet current_training_set() const;

  // After an add_iteration that installed a neural model: the ledger element that stores it with
  // this iteration (versioned: weights in base64, the training record); nullopt otherwise.
  std::optional<nlohmann::json> new_model() const;
  // The training record of the current neural model (nullopt for linear spaces or none yet).
  const std::optional<learned::TrainingRecord>& training_record() const { return record_; }

  // Resume, after restore(): the stored frames of every committed iteration, in order (no
  // fitting; features and the training memory's moments are recomputed from them).
  void restore_features(std::int64_t iteration,
                        std::span<const features::FrameHistory::WalkerSpan> spans,
                        std::span<const double> frames, std::span<const double> boxes = {});

  // Calls f(iteration, spans, learned CVs) for every stored iteration block, in order, in the
  // current space (to rebuild the history and bins after a retrain or on resume). The CVs the
  // last fit computed for its grid box are reused, not projected again.
  template <class F>
  void for_each_projected_block(F&& f) const {
    for (std::size_t i = 0; i < blocks_.size(); ++i) {
      const Block& b = blocks_[i];
      if (i < projected_.size()) {
        f(b.iteration, std::span(b.spans), projected_[i]);
      } else {
        f(b.iteration, std::span(b.spans), project(b.features));
      }
    }
  }
  // The grid of the current space: data bounds ±10 % span of the last fit's projections.
  binning::UniformGrid grid(const std::vector<int>& n_bins) const;
  // The features of a global frame index (the coordinates, for the built-in engine).
  std::span<const double> features_of(std::int64_t global) const;

  // Compact JSON: the model (linear: flat vector, scaling and column selection folded in; neural:
  // scaling, columns and the iteration whose new_model() holds the weights), grid box,
  // controller, feature type, selected columns, a pending retrain and the memory's iteration list
  // (its moments are recomputed from the features on resume, so the state stays O(d k)).
  nlohmann::json state() const;
  // `models` is asked for a neural model's weights; a pending retrain is prepared again once
  // restore_features has seen every committed iteration.
  void restore(const nlohmann::json& state, const ModelLoader& models = {});

  MomentsAlgorithm moments_algorithm() const { return moments_; }

  // The current linear model (pca | tica), scaling and column selection folded in.
  analysis::LinearProjection projection() const;
  const SpaceModel& model() const { return *model_; }

 private:
  SpaceStage(const SpaceOptions& options, std::unique_ptr<features::FeatureSource> owned,
             const features::FeatureSource* source, FrameLoader loader);

  struct Block {
    std::int64_t iteration;
    std::int64_t first;  // global index of its first frame
    std::vector<features::FrameHistory::WalkerSpan> spans;
    FeatureRows features;
  };
  // Sufficient statistics of some feature blocks: moments at the model's lag, at the
  // selection lag (feature_selection enabled) and the feature range (MinMax scaling).
  struct Memory {
    std::int64_t iteration = 0;
    SpaceMoments model;
    std::optional<analysis::RunningMoments> selection;
    std::vector<double> lo, hi;
    void merge(const Memory& other);
  };
  void append_block(std::int64_t iteration,
                    std::span<const features::FrameHistory::WalkerSpan> spans,
                    FeatureRows features);
  Memory block_memory(const Block& b) const;
  Memory block_memory(const Block& b, FeatureRows::Range range) const;  // b's range known
  // The features of frames in the current type and their range (the built-in coordinates:
  // copied in the pass that finds the range).
  FeatureRows current_features(std::span<const double> frames,
                               std::span<const features::FrameHistory::WalkerSpan> spans,
                               std::span<const double> boxes, FeatureRows::Range& range) const;
  Memory empty_memory() const;
  std::vector<double> features_for(const std::string& type, std::span<const double> frames,
                                   std::span<const features::FrameHistory::WalkerSpan> spans,
                                   std::span<const double> boxes) const;
  bool rank_feature_types(std::int64_t iteration,
                          std::span<const features::FrameHistory::WalkerSpan> spans,
                          std::span<const double> frames, std::span<const double> boxes,
                          std::vector<double>& features);
  void switch_type(const std::string& type);
  void select_columns(const Memory& training);
  std::optional<double> score(const Block& b, const Memory& m) const;  // VAMP-2 of the model
  // The score a fit records as the retrain controller's reference (see space_stage.cpp).
  std::optional<double> reference_score(const Block& b, const Memory& m) const;
  TrainingSet training_set(std::int64_t iteration, const Memory& training) const;
  Memory training_memory(const Memory& current) const;
  // `projected`: the CVs of the first blocks in `model`, computed already (a background
  // training projects the history it saw while the MD runs); the other blocks are projected here.
  void install(std::unique_ptr<SpaceModel> model, std::optional<learned::TrainingRecord> record,
               std::int64_t trained_at, std::int64_t iteration,
               std::vector<std::vector<double>> projected = {});
  bool join_training(std::int64_t iteration, bool discard);  // true: installed
  std::vector<double> project(std::span<const double> features) const;

  std::string mode_;
  MomentsAlgorithm moments_;  // of the memory blocks; recorded in state() (docs/cvs.md)
  int threads_;
  config::LearnedSpaceConfig options_;
  std::uint64_t seed_;
  std::unique_ptr<features::FeatureSource>
      owned_source_;  // the coordinate source of the int constructor
  const features::FeatureSource* source_;
  FrameLoader loader_;
  std::string type_;
  bool type_chosen_ = false;                          // feature-type ranking has run at least once
  nlohmann::json ranking_ = nlohmann::json::array();  // last ranking, for the ledger state
  int d_, k_;
  analysis::RetrainController controller_;
  std::vector<Block> blocks_;  // every iteration's features (history is never pruned)
  // The CVs of blocks_[0 .. size) in the current model (filled by install(), extended by each
  // add_iteration while it covers every earlier block; empty after a restore).
  std::vector<std::vector<double>> projected_;
  // Training memory: per-iteration statistics, pruned (anchor + random middle + recent quarter).
  std::vector<std::int64_t> memory_iterations_;
  std::vector<Memory> memory_;
  std::int64_t first_block_frames_ = 0;
  std::optional<std::vector<int>> columns_;
  double selection_score_ = 0;
  std::unique_ptr<SpaceTrainer> trainer_;
  std::unique_ptr<SpaceModel> model_;
  std::optional<learned::TrainingRecord> record_;  // neural models only
  std::int64_t model_trained_at_ = -1;   // the iteration whose decision prepared the model
  std::int64_t model_iteration_ = -1;    // the iteration whose commit stores its weights
  bool model_is_new_ = false;            // installed by the last add_iteration
  std::optional<std::int64_t> pending_;  // a neural retrain waiting for the next iteration
  struct Trained {
    std::unique_ptr<SpaceModel> model;
    learned::TrainingRecord record;
    std::vector<std::vector<double>> projected;  // the blocks stored at its start, in `model`
    double seconds = 0;                          // wall time of the training (logged, never stored)
    double projection_seconds = 0;               // of `projected` (logged)
  };
  std::future<Trained> training_;
  std::vector<double> lo_, hi_;
  std::int64_t version_ = 0;
  bool retrained_ = false;
};

}  // namespace trails::spaces
