// The key table. Defaults and ranges are Trails-MD 1.1.0's (its configuration and preflight
// checks; docs/configuration.md); "not built" keys carry the feature name used in error messages.
#include "trails/config/schema.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "trails/config/cross_checks.h"
#include "trails/config/engines/engine_module.h"
#include "trails/config/key_row.h"

namespace trails::config::detail {
namespace {

using json = nlohmann::json;
using T = ValueType;

const std::vector<std::string_view> kNeuralSpaces = {"tvae", "vampnet", "spib", "deep-tica"};

// When a campaign row is in the run's JSON (K::written_if): the learned space's keys only in a
// learned space, so fixed-space digests are unchanged; its molecular feature keys only for
// engines other than the built-in one (whose features are its coordinates); the
// feature_selection block only when enabled, so earlier learned-space digests are unchanged.
bool learned(const CampaignConfig& c) { return c.learned_space(); }
bool molecular_features(const CampaignConfig& c) {
  return c.learned_space() && c.engine.md_engine != "builtin";
}
bool selecting(const CampaignConfig& c) { return c.learned_space() && c.learned.selection.enabled; }

// The choices kept as enums or flags, and back.
RetrainPolicyKind retrain_policy_of(const json& v) {
  return v == "vamp_adaptive" ? RetrainPolicyKind::VampAdaptive : RetrainPolicyKind::Fixed;
}
const char* retrain_policy_name(RetrainPolicyKind k) {
  return k == RetrainPolicyKind::VampAdaptive ? "vamp_adaptive" : "fixed";
}
bool sincos_of(const json& v) { return v == "sincos"; }
const char* angle_encoding_name(bool sincos) { return sincos ? "sincos" : "raw"; }
bool greedy_of(const json& v) { return v != "all"; }
const char* selection_method_name(bool greedy) { return greedy ? "greedy_vamp" : "all"; }
std::optional<int> batch_size_of(const json& v) {  // auto: all training pairs in one batch
  return v.is_number_integer() ? std::optional<int>(v.get<int>()) : std::nullopt;
}
json batch_size_json(const std::optional<int>& b) { return b ? json(*b) : json("auto"); }

std::vector<KeySpec> make_table() {
  const json null_v = nullptr;
  const json empty_list = json::array();
  std::vector<K> k = {
      // ---- top level ----
      K("", "outdir", T::OutPath, "output").effective_only().fills_campaign([](auto& c) -> auto& {
        return c.outdir;
      }),
      K("", "random_seed", T::Int, 42).ge(0).wide().fills_campaign([](auto& c) -> auto& {
        return c.random_seed;
      }),
      K("", "iterations", T::Int, null_v).null().ge(0).effective_only().fills_campaign([
      ](auto& c) -> auto& { return c.iterations; }),
      K("", "n_bins", T::IntList, json::array({30, 30})).non_empty().ge(1),
      K("", "min_values", T::NumberList, null_v).null().fills_campaign([](auto& c) -> auto& {
        return c.min_values;
      }),
      K("", "max_values", T::NumberList, null_v).null().fills_campaign([](auto& c) -> auto& {
        return c.max_values;
      }),
      K("", "space_mode", T::String, "fixed")
          .one_of({"fixed", "pca", "tica", "tvae", "vampnet", "spib", "deep-tica", "deep-lda"})
          .built_only({"fixed", "pca", "tica", "tvae", "vampnet", "spib", "deep-tica"},
                      "the learned CV space {}")
          .fills_campaign([](auto& c) -> auto& { return c.space_mode; }),
      K("", "checkpoint_freq", T::Int, 1).ge(0).effective_only().fills_campaign([
      ](auto& c) -> auto& { return c.checkpoint_freq; }),
      K("", "min_success_fraction", T::Number, 1.0).gt(0).le(1).fills_campaign([
      ](auto& c) -> auto& { return c.min_success_fraction; }),
      K("", "adaptive_feature_type", T::String, "distances")
          .one_of({"distances", "fitted_coords", "phi_psi"})
          .written_if(molecular_features)
          .fills_campaign([](auto& c) -> auto& { return c.learned.feature_type; }),
      K("", "adaptive_angle_encoding", T::String, "raw")
          .one_of({"raw", "sincos"})
          .written_if(molecular_features)
          .fills_campaign(
              [](auto& c) -> auto& { return c.learned.sincos; }, sincos_of, angle_encoding_name),
      // Trails extension (docs/cvs.md)
      K("", "cvs", T::MappingList, null_v).null().non_empty().fills([](auto& c) -> auto& {
        return c.cvs;
      }),
      // ---- the learned space (docs/cvs.md, "Learned spaces") ----
      K("", "retrain_policy", T::String, "fixed")
          .one_of({"fixed", "vamp_adaptive"})
          .written_if(learned)
          .fills_campaign(
              [](auto& c) -> auto& { return c.learned.retrain_policy; }, retrain_policy_of,
              retrain_policy_name),
      K("", "retrain_freq", T::Int, 1).ge(0).written_if(learned).fills_campaign([
      ](auto& c) -> auto& { return c.learned.retrain_freq; }),
      K("", "vamp_retrain_tol", T::Number, 0.1).ge(0).written_if(learned).fills_campaign([
      ](auto& c) -> auto& { return c.learned.vamp_retrain_tol; }),
      K("", "retrain_min_interval", T::Int, 1).ge(0).written_if(learned).fills_campaign([
      ](auto& c) -> auto& { return c.learned.retrain_min_interval; }),
      K("", "retrain_max_interval", T::Int, null_v)
          .null()
          .ge(0)
          .written_if(learned)
          .fills_campaign([](auto& c) -> auto& { return c.learned.retrain_max_interval; }),
      K("", "aggregate_memory", T::Bool, true).written_if(learned).fills_campaign([
      ](auto& c) -> auto& { return c.learned.aggregate_memory; }),
      K("", "max_adaptive_memory_frames", T::Int, 50000).gt(0).written_if(learned).fills_campaign([
      ](auto& c) -> auto& { return c.learned.max_adaptive_memory_frames; }),
      // Output only: not result-relevant.
      K("", "save_features", T::Bool, false).written_if(learned).effective_only().fills_campaign([
      ](auto& c) -> auto& { return c.learned.save_features; }),
      // ---- system ----
      // Each engine's module writes the ones it reads into the run's JSON.
      K("system", "conf_file", T::FilePath, null_v).null().fills([](auto& c) -> auto& {
        return c.system.conf_file;
      }),
      K("system", "top_file", T::FilePath, null_v).null().fills([](auto& c) -> auto& {
        return c.system.top_file;
      }),
      K("system", "system_file", T::FilePath, null_v).null().fills([](auto& c) -> auto& {
        return c.system.system_file;
      }),
      // Trails extension: PDB + force field
      K("system", "forcefield", T::StringList, empty_list).fills([](auto& c) -> auto& {
        return c.system.forcefield;
      }),
      K("system", "project_file", T::FilePath, null_v).null().fills([](auto& c) -> auto& {
        return c.system.project_file;
      }),
      K("system", "trajectory_topology_file", T::FilePath, null_v).null().fills([
      ](auto& c) -> auto& { return c.system.trajectory_topology_file; }),
      K("system", "initial_trajectory", T::FilePath, null_v).null().fills([](auto& c) -> auto& {
        return c.system.initial_trajectory;
      }),
      K("system", "feature_selection", T::String, "protein and not (type H)")
          .written_if(molecular_features)
          .fills_campaign([](auto& c) -> auto& { return c.learned.feature_atoms; }),
      // Trails-MD accepts any string and never reads it (docs/trails-md-compatibility.md).
      K("system", "topology", T::String, null_v).null().no_effect(),
      K("system", "start", T::Points, null_v).null().non_empty(),
      // ---- engine ----
      // The keys every engine shares; each engine's own rows are in its module
      // (config/engines/), added below.
      K("engine", "md_engine", T::String, "openmm").one_of(engine_names()).fills([
      ](auto& c) -> auto& { return c.engine.md_engine; }),
      K("engine", "seed", T::Int, null_v).null().ge(0).wide().fills([](auto& c) -> auto& {
        return c.engine.seed;
      }),
      // The MD block every engine reads (MdBlockConfig).
      K("engine", "dt", T::Number, 0.002).gt(0).fills([](auto& c) -> auto& {
        return c.engine.md.dt;
      }),
      K("engine", "temperature", T::Number, 300.0).gt(0).fills([](auto& c) -> auto& {
        return c.engine.md.temperature;
      }),
      K("engine", "pressure", T::Number, 1.0).gt(0).fills([](auto& c) -> auto& {
        return c.engine.md.pressure;
      }),
      K("engine", "npt", T::Bool, false).fills([](auto& c) -> auto& { return c.engine.md.npt; }),
      // Trails-MD's name of execution.devices (build_md_system reads the two together).
      K("engine", "gpu_ids", T::IntList, null_v).null().non_empty().ge(0),
      // A .top file's include directory: the OpenMM and GROMACS engines both read .top files.
      K("engine", "gromacs_include_dir", T::DirPath, null_v).null().fills([](auto& c) -> auto& {
        return c.engine.gromacs_include_dir;
      }),
      K("engine", "python", T::String, null_v).null().fills([](auto& c) -> auto& {
        return c.engine.python;
      }),
  };
  // Each engine module's own rows (config/engines/), in the registry's order.
  std::vector<KeySpec> out = rows_of(std::move(k));
  for (const EngineModule* module : engine_modules()) {
    for (KeySpec& row : module->keys()) out.push_back(std::move(row));
  }
  std::vector<K> rest = {
      // Trails extension (docs/engines.md, "Walker files and scratch"): keep each walker's work
      // directory.
      K("engine", "keep_walker_files", T::Bool, false).fills([](auto& c) -> auto& {
        return c.engine.keep_walker_files;
      }),
      // ---- spawning ----
      K("spawning", "walker", T::Int, 10).gt(0),
      K("spawning", "step", T::Int, 10000).gt(0),
      K("spawning", "stride", T::Int, 100).gt(0),
      K("spawning", "max_workers", T::Int, 4).ge(1),
      K("spawning", "spawn_scheme", T::String, "density")
          .one_of({"density", "voronoi", "lof", "fps", "msm", "we"}),
      K("spawning", "spawn_type", T::String, "hard").one_of({"hard", "soft", "probabilistic"}),
      K("spawning", "recent_density_window", T::Int, 5).ge(0),
      K("spawning", "search_mode", T::String, "explore").one_of({"explore", "target"}),
      K("spawning", "target", T::NumberList, null_v).null().non_empty(),
      K("spawning", "history_window", T::Int, null_v).null().ge(0),
      K("spawning", "convergence_patience", T::Int, 0).ge(0),
      K("spawning", "resolution_check_patience", T::Int, 5).ge(0),
      K("spawning", "resolution_max_bins", T::Int, 150).gt(0),
      K("spawning", "voronoi_max_clusters", T::Int, 5000).gt(0),
      K("spawning", "voronoi_clusters", T::Int, 150).gt(0),
      // Trails-MD stores it and never reads it (its Voronoi cell areas are exact).
      K("spawning", "voronoi_grid_size", T::Int, 250).gt(0).no_effect(),
      K("spawning", "voronoi_periodic", T::Bool, false).only_with(kSchemeKey, {"voronoi"}),
      K("spawning", "lof_neighbors", T::Int, 20).gt(0).only_with(kSchemeKey, {"lof"}),
      // Weighted-ensemble kinetics (docs/kinetics.md); the rules that tie them to the scheme and
      // the engine are check_kinetics (cross_checks.cpp).
      K("spawning", "inherit_velocities", T::Bool, false),
      K("spawning", "recycle_target", T::Boxes, null_v).null().non_empty(),
      K("spawning", "recycle_basis_index", T::Int, 0).ge(0).only_with(kSchemeKey, {"we"}),
      // Trails-MD's in-loop WE never reads it (fix:we-target-per-bin): Trails uses it with
      // we_allocation: per_bin.
      K("spawning", "we_target_per_bin", T::Int, 4)
          .gt(0)
          .le(kMaxWalkers)
          .only_with(kSchemeKey, {"we"}),
      K("spawning", "we_allocation", T::String, "budget")
          .one_of({"budget", "per_bin"})
          .only_with(kSchemeKey, {"we"}),
      K("spawning", "n_bins", T::IntList, null_v).null().non_empty().ge(1),
      // ---- msm ----
      K("msm", "enabled", T::Bool, false),
      K("msm", "cadence", T::Int, 1).gt(0),
      K("msm", "min_frames", T::Int, 1000).ge(0),
      K("msm", "n_microstates", T::Int, 100).gt(0),
      K("msm", "cluster_method", T::String, "kmeans").one_of({"kmeans", "regspace"}),
      K("msm", "stable_clustering", T::Bool, false),
      K("msm", "lagtime", T::Int, 10).gt(0),
      K("msm", "estimator", T::String, "mle").one_of({"mle", "bayesian"}),
      K("msm", "n_bayesian_samples", T::Int, 50).gt(0),
      K("msm", "n_timescales", T::Int, 3).gt(0),
      K("msm", "n_metastable", T::Int, null_v).null().gt(0),
      K("msm", "lagtimes", T::IntList, null_v).null().non_empty().gt(0),
      K("msm", "convergence_criteria", T::CriteriaMapping,
        json{{"its", {{"tol", 0.1}, {"n", 2}}}, {"vamp2", {{"tol", 0.05}}}}),
      K("msm", "convergence_mode", T::String, "all").one_of({"all", "any"}),
      K("msm", "convergence_patience", T::Int, 2).ge(0),
      // Trails extension (docs/analysis.md, "Exploration floor")
      K("msm", "min_explored_fraction", T::Number, 0.25).ge(0).le(1),
      K("msm", "spawn_alpha", T::Number, 1.0).ge(0),
      K("msm", "spawn_leverage", T::Number, 1.0).ge(0),
      K("msm", "spawn_uncertainty", T::Bool, true),
      // ---- binning ----
      // Trails-MD attaches a binner to the density and weighted-ensemble spawners only.
      K("binning", "scheme", T::String, "uniform")
          .one_of({"uniform", "gradient", "mab", "eigenvector"})
          .only_with(kSchemeKey, {"density", "we"}),
      K("binning", "n_fine", T::Int, 100).gt(0).only_with("binning.scheme", {"gradient", "mab"}),
      K("binning", "smoothing", T::Int, 3).ge(0).only_with("binning.scheme", {"gradient"}),
      // ---- execution ----
      K("execution", "backend", T::String, "local")
          .one_of({"local", "mpi", "slurm", "pbs", "torque"}),
      K("execution", "devices", T::IntList, null_v).null().non_empty().ge(0),
      K("execution", "workers_per_device", T::IntOrAuto, 1).ge(1),
      K("execution", "binding_check", T::String, "warn").one_of({"warn", "fail", "off"}),
      K("execution", "scratch", T::String, null_v).null(),  // node-local disk: docs/execution.md
      K("execution", "walker_timeout", T::Number, null_v).null().gt(0),
      K("execution", "persistent_workers", T::Bool, false),
      K("execution", "partition", T::String, null_v).null().scheduler(),
      K("execution", "account", T::String, null_v).null().scheduler(),
      K("execution", "walltime", T::String, "01:00:00").scheduler(),
      K("execution", "cpus_per_task", T::Int, 1).gt(0).scheduler(),
      K("execution", "gpus_per_task", T::Int, 0).ge(0).scheduler(),
      K("execution", "gres", T::String, null_v).null().scheduler(),
      K("execution", "memory", T::String, null_v).null().scheduler(),
      K("execution", "extra_directives", T::StringList, empty_list).scheduler(),
      K("execution", "module_loads", T::StringList, empty_list).scheduler(),
      K("execution", "job_name", T::String, "trails-md").scheduler(),
      K("execution", "max_array_size", T::Int, null_v).null().gt(0).scheduler(),
      K("execution", "max_in_flight", T::Int, null_v).null().gt(0).scheduler(),
      K("execution", "submit_retry_limit", T::Int, 20).ge(0).scheduler(),
      K("execution", "submit_retry_interval", T::Number, 15.0).ge(0).scheduler(),
      K("execution", "submit_timeout", T::Number, 60.0).gt(0).scheduler(),
      K("execution", "poll_interval", T::Number, 30.0).gt(0).scheduler(),
      K("execution", "wait_timeout", T::Number, null_v).null().gt(0).scheduler(),
      K("execution", "marker_grace", T::Number, 30.0).ge(0).scheduler(),
      K("execution", "max_retries", T::Int, 1).ge(0).scheduler(),
      K("execution", "walkers_per_task", T::Int, 1).ge(1).scheduler(),
      // Silence before a worker counts as hung: 300 s for array tasks, 30 s for MPI ranks.
      K("execution", "heartbeat_timeout", T::Number, null_v)
          .null()
          .gt(0)
          .only_with(kBackendKey, {"mpi", "slurm", "pbs", "torque"}),
      // ---- output (record policy of the shards; docs/file-formats.md) ----
      K("output", "record_selection", T::String, null_v).null(),
      K("output", "precision", T::String, "float64").one_of({"float32", "float64"}),
      // Default 0.001 (nm) for engines with atoms, exact for the built-in engine and with
      // precision: float32 (build.cpp, docs/configuration.md).
      K("output", "position_precision", T::NumberOrExact, 0.001).gt(0),
      // ---- feature_selection ----
      // The block's keys are in the run's JSON only when it is enabled (selecting).
      K("feature_selection", "enabled", T::Bool, false).written_if(selecting).fills_campaign([
      ](auto& c) -> auto& { return c.learned.selection.enabled; }),
      K("feature_selection", "method", T::String, "greedy_vamp")
          .one_of({"greedy_vamp", "all"})
          .written_if(selecting)
          .fills_campaign(
              [](auto& c) -> auto& { return c.learned.selection.greedy; }, greedy_of,
              selection_method_name),
      K("feature_selection", "lagtime", T::Int, 10).gt(0).written_if(selecting).fills_campaign([
      ](auto& c) -> auto& { return c.learned.selection.lagtime; }),
      K("feature_selection", "cadence", T::Int, 5).gt(0).written_if(selecting).fills_campaign([
      ](auto& c) -> auto& { return c.learned.selection.cadence; }),
      K("feature_selection", "max_features", T::Int, null_v)
          .null()
          .gt(0)
          .written_if(selecting)
          .fills_campaign([](auto& c) -> auto& { return c.learned.selection.max_features; }),
      K("feature_selection", "dim", T::Int, null_v)
          .null()
          .gt(0)
          .written_if(selecting)
          .fills_campaign([](auto& c) -> auto& { return c.learned.selection.dim; }),
      K("feature_selection", "min_gain", T::Number, 1e-4)
          .ge(0)
          .written_if(selecting)
          .fills_campaign([](auto& c) -> auto& { return c.learned.selection.min_gain; }),
      K("feature_selection", "candidate_feature_types", T::StringList, empty_list)
          .written_if(selecting)
          .fills_campaign(
              [](auto& c) -> auto& { return c.learned.selection.candidate_feature_types; }),
      // ---- adaptive_model ----
      // The latent dimension is len(n_bins) (written by campaign_json.cpp); a neural space's
      // keys are written only with the spaces that read them (model()).
      K("adaptive_model", "latent_dim", T::Int, 2).gt(0),
      K("adaptive_model", "lagtime", T::Int, 5).gt(0).written_if(learned).fills_campaign([
      ](auto& c) -> auto& { return c.learned.lagtime; }),
      K("adaptive_model", "encoder_hidden_dims", T::IntList, json::array({256, 128}))
          .gt(0)
          .model({"tvae", "vampnet", "spib"})
          .fills_campaign([](auto& c) -> auto& { return c.learned.model.encoder_hidden_dims; }),
      K("adaptive_model", "decoder_hidden_dims", T::IntList, json::array({128, 256}))
          .gt(0)
          .model({"tvae"})
          .fills_campaign([](auto& c) -> auto& { return c.learned.model.decoder_hidden_dims; }),
      K("adaptive_model", "dropout_rate", T::Number, 0.1)
          .ge(0)
          .lt(1)
          .model({"tvae", "spib"})
          .fills_campaign([](auto& c) -> auto& { return c.learned.model.dropout_rate; }),
      K("adaptive_model", "learning_rate", T::Number, 5e-4)
          .gt(0)
          .model(kNeuralSpaces)
          .fills_campaign([](auto& c) -> auto& { return c.learned.model.learning_rate; }),
      K("adaptive_model", "epochs", T::Int, 50).gt(0).model(kNeuralSpaces).fills_campaign([
      ](auto& c) -> auto& { return c.learned.model.epochs; }),
      K("adaptive_model", "batch_size", T::IntOrAuto, "auto")
          .ge(2)
          .model(kNeuralSpaces)
          .fills_campaign(
              [](auto& c) -> auto& { return c.learned.model.batch_size; }, batch_size_of,
              batch_size_json),
      K("adaptive_model", "tvae_beta", T::Number, 1.0).gt(0).model({"tvae"}).fills_campaign([
      ](auto& c) -> auto& { return c.learned.model.tvae_beta; }),
      K("adaptive_model", "spib_n_states", T::Int, 10).ge(2).model({"spib"}).fills_campaign([
      ](auto& c) -> auto& { return c.learned.model.spib_n_states; }),
      K("adaptive_model", "spib_beta", T::Number, 1e-3).ge(0).model({"spib"}).fills_campaign([
      ](auto& c) -> auto& { return c.learned.model.spib_beta; }),
      K("adaptive_model", "spib_refine_rounds", T::Int, 5).ge(0).model({"spib"}).fills_campaign([
      ](auto& c) -> auto& { return c.learned.model.spib_refine_rounds; }),
      K("adaptive_model", "deep_tica_hidden_dims", T::IntList, json::array({256, 128}))
          .gt(0)
          .model({"deep-tica"})
          .fills_campaign([](auto& c) -> auto& { return c.learned.model.deep_tica_hidden_dims; }),
  };
  for (KeySpec& row : rows_of(std::move(rest))) out.push_back(std::move(row));
  return out;
}

}  // namespace

std::string KeySpec::dotted() const {
  return block.empty() ? std::string(name) : std::string(block) + "." + std::string(name);
}

const std::vector<KeySpec>& all_keys() {
  static const std::vector<KeySpec> table = make_table();
  return table;
}

const std::vector<std::string_view>& block_names() {
  static const std::vector<std::string_view> names = {
      "system",    "engine", "spawning",          "msm",           "binning",
      "execution", "output", "feature_selection", "adaptive_model"};
  return names;
}

bool is_required_block(std::string_view block) {
  return block == "system" || block == "engine" || block == "spawning";
}

bool is_block(std::string_view name) {
  const auto& names = block_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

const KeySpec* find_key(std::string_view block, std::string_view name) {
  for (const auto& key : all_keys()) {
    if (key.block == block && key.name == name) return &key;
  }
  return nullptr;
}

std::vector<std::string_view> blocks_with_key(std::string_view name, std::string_view except) {
  std::vector<std::string_view> out;
  for (const auto& key : all_keys()) {
    if (key.name == name && key.block != except) out.push_back(key.block);
  }
  return out;
}

std::string yaml_repr(const nlohmann::json& value) {
  if (value.is_null()) return "null";
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) {
    // Shortest text that reads back as the same double, without a spurious ".0" trail.
    const double d = value.get<double>();
    if (std::floor(d) == d && std::fabs(d) < 1e15) {
      std::ostringstream os;
      os << static_cast<long long>(d) << ".0";
      return os.str();
    }
    return value.dump();
  }
  if (value.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < value.size(); ++i) {
      if (i) out += ", ";
      out += yaml_repr(value[i]);
    }
    return out + "]";
  }
  if (value.is_object()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [k, v] : value.items()) {
      if (!first) out += ", ";
      first = false;
      out += k + ": " + yaml_repr(v);
    }
    return out + "}";
  }
  return value.dump();  // bools and integers
}

}  // namespace trails::config::detail
