#include "trails/swarm/learned_projection.h"

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/spaces/stored_space_model.h"
#include "trails/structure/selection.h"

namespace trails::swarm {
namespace {

// The run's feature atoms must be the same atoms of the swarm's system: the selection resolves
// to the same indices, with the same names and residues.
void check_feature_atoms(const spaces::StoredSpaceModel& m, const engines::EngineSystem& system,
                         const std::string& where) {
  if (!system.topology) {
    throw core::ConfigError(fmt::format(
        "{}: the model's features are {} over atoms of the run's topology, but the swarm's "
        "prepared system in {} has no topology to check them against",
        where, m.feature_type, system.prepared_dir.string()));
  }
  const std::string selection =
      m.config.value("system", nlohmann::json::object()).value("feature_selection", "");
  std::vector<int> here;
  try {
    here = structure::select_nonempty(*system.topology, selection, "system.feature_selection");
  } catch (const core::Error& e) {
    if (e.exit_code() != 2) throw;
    here.clear();
  }
  const auto same_atom = [&](int i) {
    const auto& a = m.topology->atoms[static_cast<std::size_t>(i)];
    const auto& b = system.topology->atoms[static_cast<std::size_t>(i)];
    return a.name == b.name && a.resname == b.resname && a.resid == b.resid;
  };
  bool same = here == m.feature_atoms;
  for (std::size_t k = 0; same && k < here.size(); ++k) same = same_atom(here[k]);
  if (!same) {
    throw core::ConfigError(fmt::format(
        "{}: the model's feature atoms (system.feature_selection \"{}\" of the run: {} atoms on "
        "{}) are not the same atoms in the swarm's system ({} match there); the model reads only "
        "the system it was trained on",
        where, selection, m.feature_atoms.size(), m.topology_file.string(), here.size()));
  }
}

}  // namespace

LearnedCv make_learned_projection(const config::LearnedProjection& spec,
                                  const engines::Engine& engine) {
  const std::string& where = spec.location;
  std::shared_ptr<spaces::StoredSpaceModel> m;
  try {
    m = spaces::load_stored_space_model(spec.run_dir, spec.iteration, "projection.iteration");
    spaces::rebuild_run_features(*m);
  } catch (const core::Error& e) {
    if (e.exit_code() != 2) throw;
    throw core::ConfigError(fmt::format("{}: {}", where, e.describe()));
  }
  const engines::EngineSystem& system = engine.system();
  if (m->molecular != system.molecular) {
    throw core::ConfigError(fmt::format(
        "{}: the model reads {}, but the swarm's engine ({}) {}; the model reads only the kind "
        "of system it was trained on",
        where, m->molecular ? "features of atoms" : "the built-in engine's coordinates",
        engine.name(), system.molecular ? "moves atoms" : "moves a point of its potential"));
  }
  const int run_values = m->n_atoms * m->spatial_dim;
  const int swarm_values = system.n_atoms * system.spatial_dim;
  if (run_values != swarm_values) {
    throw core::ConfigError(fmt::format(
        "{}: the model's run has {} {} ({} coordinates), the swarm's system {} ({}); the model "
        "reads only the system it was trained on",
        where, m->n_atoms, m->molecular ? "atoms" : "particles", run_values, system.n_atoms,
        swarm_values));
  }
  if (m->molecular) check_feature_atoms(*m, system, where);
  LearnedCv out;
  out.identity = {{"run", spec.run_dir.string()},
                  {"iteration", m->iteration},
                  {"feature_type", m->feature_type},
                  {"n_features", m->model->n_features()},
                  {"digest", m->digest}};
  out.projection = spaces::make_stored_model_projection(std::move(m));
  return out;
}

}  // namespace trails::swarm
