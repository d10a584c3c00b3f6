// The stored model and its run's features (stored_space_model.h).
#include "trails/spaces/stored_space_model.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "trails/config/campaign_config.h"
#include "trails/config/config_digest.h"
#include "trails/core/base64.h"
#include "trails/core/error.h"
#include "trails/cvs/cv_spec.h"
#include "trails/features/molecular_features.h"
#include "trails/store/prepared_topology.h"
#include "trails/store/run_store.h"
#include "trails/structure/selection.h"
#include "trails/structure/structure_file.h"

namespace trails::spaces {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr int kSpaceVersion = 1;       // the element versions the campaign writes
constexpr int kSpaceModelVersion = 1;  // the row's; the weights' format is inside (model_weights)

// The prepared system's start positions at full precision (prepare.json beside topology.pdb,
// the engine's reference for fitted_coords), else the PDB's own coordinates.
std::vector<double> reference_positions(const fs::path& topology_pdb,
                                        const structure::StructureFile& file) {
  std::ifstream in(topology_pdb.parent_path() / "prepare.json");
  if (in) {
    std::stringstream text;
    text << in.rdbuf();
    const json info = json::parse(text.str(), nullptr, false);
    if (info.is_object() && info.contains("positions") &&
        info["positions"].size() == 3 * file.topology.atoms.size()) {
      return info["positions"].get<std::vector<double>>();
    }
  }
  return file.frames.front();
}

// The features the campaign computed (campaign/features_factory.h), from its stored
// configuration: adaptive_feature_type over system.feature_selection, resolved on
// system.trajectory_topology_file when the run set one, else on its prepared topology.
void molecular_features(const std::optional<fs::path>& given, StoredSpaceModel& out) {
  const json& c = out.config;
  const json& system = c.value("system", json::object());
  const auto trajectory_topology = system.value("trajectory_topology_file", std::string());
  if (given) {
    out.topology_file = *given;
  } else if (!trajectory_topology.empty()) {
    out.topology_file = trajectory_topology;
  } else {
    try {
      out.topology_file = store::prepared_topology(out.run_dir);
    } catch (const core::InputError& e) {
      throw core::InputError(e.describe() +
                             "; give a PDB or GRO of the run's system in its place (trails project "
                             "--topology)");
    }
  }
  if (!fs::is_regular_file(out.topology_file)) {
    throw core::InputError(out.topology_file.string() +
                           ": no such topology file; the run's features are resolved on it");
  }
  structure::StructureFile file = structure::read_structure(out.topology_file);
  if (file.frames.empty() || file.topology.n_atoms() != out.n_atoms) {
    throw core::InputError(fmt::format("{}: {} atoms, but the run's system has {}",
                                       out.topology_file.string(), file.topology.n_atoms(),
                                       out.n_atoms));
  }
  const std::vector<double> reference = !given && trajectory_topology.empty()
                                            ? reference_positions(out.topology_file, file)
                                            : file.frames.front();
  auto topology = std::make_shared<structure::Topology>(std::move(file.topology));
  out.feature_atoms = structure::select_nonempty(
      *topology, system.value("feature_selection", std::string()), "system.feature_selection");
  const auto encoding = c.value("adaptive_angle_encoding", "sincos") == "sincos"
                            ? cvs::AngleEncoding::Sincos
                            : cvs::AngleEncoding::Raw;
  auto source = std::make_shared<features::MolecularFeatures>();
  source->add(out.feature_type,
              cvs::CvSet({cvs::trails_md_feature(out.feature_type, out.feature_atoms, encoding)},
                         *topology, reference));
  out.topology = std::move(topology);
  out.features = std::move(source);
}

class StoredModelProjection final : public features::Projection {
 public:
  explicit StoredModelProjection(std::shared_ptr<const StoredSpaceModel> m) : m_(std::move(m)) {}
  int dimension() const override { return m_->model->dim(); }
  std::vector<std::string> column_names() const override { return m_->cv_names; }
  void project(std::span<const double> frames, std::int64_t n_frames, std::span<const double> boxes,
               std::vector<double>& out) const override {
    const auto rows = m_->features->compute(m_->feature_type, frames, n_frames, boxes);
    const auto cvs =
        m_->model->project(rows, 1);  // one thread: swarm trials already run in parallel
    out.insert(out.end(), cvs.begin(), cvs.end());
  }

 private:
  std::shared_ptr<const StoredSpaceModel> m_;
};

}  // namespace

std::vector<std::string> learned_cv_names(const std::string& mode, int dim) {
  std::string prefix = mode;  // deep-tica_0 would not be an identifier
  std::replace(prefix.begin(), prefix.end(), '-', '_');
  std::vector<std::string> names;
  for (int k = 0; k < dim; ++k) names.push_back(prefix + "_" + std::to_string(k));
  return names;
}

std::shared_ptr<StoredSpaceModel> load_stored_space_model(const fs::path& run_dir,
                                                          std::optional<std::int64_t> iteration,
                                                          std::string_view iteration_key) {
  const auto store = store::RunStore::open(run_dir, store::RunStore::Mode::ReadOnly);
  const auto last = store.last_committed();
  if (!last) throw core::InputError(run_dir.string() + ": no iteration is committed yet");
  auto out = std::make_shared<StoredSpaceModel>();
  out->run_dir = run_dir;
  out->iteration = iteration.value_or(*last);
  if (out->iteration < 0 || out->iteration > *last) {
    throw core::UsageError(fmt::format("{} {}: {} holds iterations 0 to {}", iteration_key,
                                       out->iteration, run_dir.string(), *last));
  }
  auto space = store.load_element_state(out->iteration, "space", kSpaceVersion);
  if (!space) {
    throw core::UsageError(run_dir.string() +
                           " is not a learned-space campaign (a fixed-CV campaign or a swarm "
                           "run): it has no learned model");
  }
  out->space = std::move(*space);
  if (is_neural_space(out->space.value("mode", "")) && !out->space.at("model").is_null()) {
    const auto at = out->space.at("model_iteration").get<std::int64_t>();
    out->element = store.load_element_state(at, "space_model", kSpaceModelVersion);
    if (!out->element) {
      throw core::CorruptionError(fmt::format(
          "{}: iteration {} holds no space_model element, but the learned space's state says its "
          "model is stored there",
          run_dir.string(), at));
    }
  }
  out->model = load_space_model(out->space, out->element ? &*out->element : nullptr);
  const int dim = out->model->dim();
  const store::RunMeta& meta = store.meta();
  const json& recorded = meta.engine_system.value("cv_names", json());
  out->cv_names = recorded.is_array() && static_cast<int>(recorded.size()) == dim
                      ? recorded.get<std::vector<std::string>>()
                      : learned_cv_names(out->space.value("mode", ""), dim);
  out->feature_type = out->space.value("feature_type", std::string("coordinates"));
  out->molecular = meta.engine_system.value("molecular", false);
  out->n_atoms = meta.engine_system.value("n_atoms", 0);
  out->spatial_dim = meta.engine_system.value("spatial_dim", 3);
  out->config = meta.config;
  // The weights enter as base64 whichever element version stored them, so a swarm pinned to
  // this model (docs/swarm.md, "Resume") keeps its digest across the formats.
  out->digest = config::digest_of(
      json{{"space", out->space},
           {"weights", out->element ? json(core::base64_encode(model_weights(*out->element)))
                                    : json(nullptr)}});
  return out;
}

void rebuild_run_features(StoredSpaceModel& m, const std::optional<fs::path>& topology) {
  if (m.molecular) {
    molecular_features(topology, m);
  } else {
    m.features = features::make_coordinate_features(m.n_atoms * m.spatial_dim);
  }
  if (m.features->n_features(m.feature_type) != m.model->n_features()) {
    throw core::InputError(fmt::format(
        "{}: the model of iteration {} reads {} features, but the run's {} give {} on {}",
        m.run_dir.string(), m.iteration, m.model->n_features(), m.feature_type,
        m.features->n_features(m.feature_type),
        m.molecular ? m.topology_file.string() : std::string("its coordinates")));
  }
}

std::unique_ptr<features::Projection> make_stored_model_projection(
    std::shared_ptr<const StoredSpaceModel> stored) {
  return std::make_unique<StoredModelProjection>(std::move(stored));
}

}  // namespace trails::spaces
