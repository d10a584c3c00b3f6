// The typed, validated campaign configuration. Produced only by load_campaign_config(); YAML never
// travels past the config module. Every value here has been range- and cross-checked; paths are
// absolute (resolved against the config file's directory). Key names follow Trails-MD's schema.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/config/md_system_config.h"

namespace trails::config {

enum class SpawnType { Hard, Soft };
enum class SearchMode { Explore, Target };

struct SpawningConfig {
  int walker = 10;
  int step = 10000;
  int stride = 100;
  int max_workers = 4;
  std::string spawn_scheme = "density";
  SpawnType spawn_type = SpawnType::Hard;
  int recent_density_window = 5;
  SearchMode search_mode = SearchMode::Explore;
  std::vector<double> target;         // required when search_mode == Target
  std::optional<int> history_window;  // None: all history; k: last k iterations; 0: current only
  int convergence_patience = 0;       // 0 = occupancy convergence off
  int resolution_check_patience = 5;
  int resolution_max_bins = 150;
  int voronoi_max_clusters = 5000;
  int voronoi_clusters = 150;  // also the MSM spawner's fallback microstate count
  bool voronoi_periodic = false;
  int lof_neighbors = 20;
  // Weighted ensemble (spawn_scheme: we; docs/kinetics.md).
  bool inherit_velocities = false;
  std::vector<std::array<double, 2>> recycle_target;  // one [lo, hi] per CV axis; empty: none
  int recycle_basis_index = 0;
  int we_target_per_bin = 4;
  bool we_per_bin = false;  // we_allocation: per_bin (else budget: spawning.walker)

  int frames_per_walker() const { return step / stride; }
};

// binning: the spawning binner (docs/spawning.md, "Adaptive binning").
struct BinningConfig {
  std::string scheme = "uniform";  // uniform | gradient | mab | eigenvector
  int n_fine = 100;                // gradient, mab
  int smoothing = 3;               // gradient
};

// Learned CV space (space_mode pca | tica | tvae | vampnet | spib | deep-tica;
// compat:learned-space). The built-in engine's
// features are its particle coordinates; OpenMM runs compute adaptive_feature_type over the
// system.feature_selection atoms. The learned dimension is len(n_bins).
enum class RetrainPolicyKind { Fixed, VampAdaptive };

// feature_selection block (compat:vamp-column-selection): VAMP-2 greedy column selection and
// feature-type ranking.
struct FeatureSelectionConfig {
  bool enabled = false;
  bool greedy = true;               // method greedy_vamp (false: all)
  int lagtime = 10;                 // frames
  int cadence = 5;                  // re-select when iteration % cadence == 0
  std::optional<int> max_features;  // at most this many columns (None: no limit)
  std::optional<int> dim;           // score only the dim largest singular values
  double min_gain = 1e-4;
  std::vector<std::string> candidate_feature_types;  // OpenMM only; empty: no ranking
};

// The neural spaces' hyper-parameters (adaptive_model block; docs/cvs.md "Learned spaces"), with
// Trails-MD's defaults. The latent dimension is len(n_bins); the lag is LearnedSpaceConfig's.
struct LearnedModelConfig {
  std::vector<int> encoder_hidden_dims{256, 128};    // tvae, vampnet, spib
  std::vector<int> decoder_hidden_dims{128, 256};    // tvae
  std::vector<int> deep_tica_hidden_dims{256, 128};  // deep-tica
  double dropout_rate = 0.1;                         // tvae, spib
  double learning_rate = 5e-4;
  int epochs = 50;
  std::optional<int> batch_size;  // nullopt: auto (all training pairs in one batch)
  double tvae_beta = 1.0;
  int spib_n_states = 10;
  double spib_beta = 1e-3;
  int spib_refine_rounds = 5;
};

struct LearnedSpaceConfig {
  RetrainPolicyKind retrain_policy = RetrainPolicyKind::Fixed;
  int retrain_freq = 1;
  double vamp_retrain_tol = 0.1;
  int retrain_min_interval = 1;
  std::optional<int> retrain_max_interval;
  bool aggregate_memory = true;
  std::int64_t max_adaptive_memory_frames = 50000;
  int lagtime = 5;  // adaptive_model.lagtime (frames): TICA's lag and the VAMP-2 score's
  // Molecular features (OpenMM): adaptive_feature_type distances | fitted_coords | phi_psi,
  // adaptive_angle_encoding sincos (phi_psi only), atoms of system.feature_selection.
  std::string feature_type = "distances";
  bool sincos = false;
  std::string feature_atoms = "protein and not (type H)";
  bool save_features = false;  // save_features: the feature rows in each shard
  FeatureSelectionConfig selection;
  LearnedModelConfig model;  // tvae | vampnet | spib | deep-tica
};

enum class ClusterMethod { KMeans, RegularSpace };
enum class ConvergenceMode { All, Any };

// msm.convergence_criteria, one entry per criterion named (compat:convergence-monitor). A criterion
// that is absent from the mapping is off.
struct MsmCriteria {
  std::optional<double> its_tol;    // implied_timescales (alias its): max relative change < tol
  int its_n = 2;                    // ... over the first n finite timescales
  std::optional<double> vamp2_tol;  // vamp2: relative change of the VAMP-2 score < tol
  std::optional<double> tm_tol;     // transition_matrix: max flux-masked sigma_ij/T_ij < tol
  double tm_min_flux = 1e-4;
  std::optional<double> populations_tol;  // stationary_distribution: sum |PCCA+ populations
                                          // (sorted) - previous| < tol; needs n_metastable
  std::optional<double> error_tol;  // statistical_error: Bayesian std of the slowest timescale
                                    // / the timescale < tol; needs estimator bayesian
};

struct MsmConfig {
  bool enabled = false;
  int cadence = 1;
  int min_frames = 1000;
  int n_microstates = 100;
  ClusterMethod cluster_method = ClusterMethod::KMeans;
  bool stable_clustering = false;
  int lagtime = 10;
  int n_timescales = 3;
  // estimator: bayesian — effective counts, point estimate = their reversible MLE, plus
  // n_bayesian_samples posterior samples for the timescales' standard deviations
  // (compat:bayesian-msm).
  bool bayesian = false;
  int n_bayesian_samples = 50;
  std::optional<int> n_metastable;  // PCCA+ sets per build (compat:pcca); 2 <= m < n_microstates
  std::vector<int> lagtimes;        // ITS ladder; empty = no sweep
  MsmCriteria criteria;
  ConvergenceMode convergence_mode = ConvergenceMode::All;
  int convergence_patience = 2;  // 0: the monitor never certifies convergence
  // Trails extension: MSM criteria alone stop a campaign only once this fraction of the grid's
  // bins is occupied (docs/analysis.md, "Exploration floor"); 0 restores Trails-MD's behaviour.
  double min_explored_fraction = 0.25;
  // MSM-guided spawner (spawn_scheme: msm, compat:msm-spawner)
  double spawn_alpha = 1.0;
  double spawn_leverage = 1.0;  // number of non-trivial eigenvectors summed (integer part)
  bool spawn_uncertainty = true;
};

// What the shards record of each frame (docs/file-formats.md, record policy). Final states never
// depend on it; with a position_precision the run computes CVs and features from, and restarts
// from, the frames on that grid (what the shards give back).
struct OutputConfig {
  std::optional<std::string> record_selection;  // atom selection; none: every atom
  bool float32 = false;                         // output.precision: float32
  double position_precision = 0.0;              // grid step (engine length unit); 0: exact
  bool reduces() const { return record_selection.has_value() || float32; }
};

// The campaign's configuration: the MD system both drivers read (md_system_config.h: engine,
// system, cvs, execution, random_seed) and the campaign's own blocks.
struct CampaignConfig : MdSystemConfig {
  std::filesystem::path config_file;  // absolute path of the YAML file
  std::filesystem::path outdir;       // absolute
  std::optional<int> iterations;      // Trails extension: default total iteration target
  std::vector<int> n_bins = {30, 30};
  std::vector<double> min_values;
  std::vector<double> max_values;
  std::string space_mode = "fixed";
  LearnedSpaceConfig learned;  // meaningful only when learned_space()
  int checkpoint_freq = 1;
  double min_success_fraction = 1.0;
  BinningConfig binning;

  // Keys accepted without effect ("FILE:LINE:COL: key: has no effect ..."), said once by the run
  // banner and by `trails check` (docs/trails-md-compatibility.md#compat-ignored-keys). Never
  // result-relevant.
  std::vector<std::string> notes;

  SpawningConfig spawning;
  MsmConfig msm;
  OutputConfig output;

  // The chosen engine's spec, prepared for this campaign's segments (spawning.step, stride).
  EngineSpec engine_spec() const {
    return MdSystemConfig::engine_spec(SegmentShape{spawning.step, spawning.stride});
  }
  int cv_dimension() const { return static_cast<int>(n_bins.size()); }
  bool learned_space() const { return space_mode != "fixed"; }
  // output.position_precision when the file does not set it: XTC's 0.001 nm for atoms in nm
  // (openmm, gromacs, amber, and the command engine with a system.conf_file); exact for a point
  // system in reduced units (the built-in engine, a command engine without conf_file), whose
  // "atom" is the CV point, and with output.precision: float32, its own rounding.
  double default_position_precision() const {
    return point_system() || output.float32 ? 0.0 : 0.001;
  }

  // Canonical JSON of every key that changes results (not outdir, not max_workers, not
  // iterations). Its digest guards --resume; keys_changed() lists what differs (config_digest.h).
  nlohmann::json result_relevant_json() const;
  // The full effective configuration (all keys with their values), for the ledger and banner.
  nlohmann::json effective_json() const;
};

// Result-relevant keys (dotted paths of result_relevant_json()) a --resume may change
// (docs/reliability.md, "What may change on resume"): the engine's time step, platform and
// precision, and the failure policy. They change how the next iterations are computed, not
// what the history means; every other key (CV space, grid, seeds, walkers, spawning) is refused.
bool changeable_on_resume(const std::string& key);
const std::vector<std::string>& resume_changeable_keys();

}  // namespace trails::config
