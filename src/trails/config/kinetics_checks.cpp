// Cross-field rules of weighted-ensemble kinetics (docs/kinetics.md; compat:kinetics-guards):
// inherit_velocities and recycle_target belong to spawn_scheme: we; inherited velocities need an
// engine that continues a task's start velocities (every molecular engine, or the built-in
// Langevin integrator: Trails-MD allows OpenMM only); one recycling
// box per CV axis; the recycling basis is a frame of iteration 0, which a reduced record policy
// would not keep in full.
#include <string>

#include "trails/config/cross_checks.h"

namespace trails::config::detail {
namespace {

bool is_we(const RawConfig& raw) {
  return raw.usable("spawning.spawn_scheme") && raw.value("spawning.spawn_scheme") == "we";
}

void check_inherit(const RawConfig& raw, Problems& problems) {
  const Entry& inherit = raw.at("spawning.inherit_velocities");
  if (!inherit.present || !inherit.valid || !inherit.value.get<bool>()) return;
  if (!is_we(raw)) {
    problems.add(inherit.value_at, "spawning.inherit_velocities",
                 "continues each walker's velocities into its children, which only the weighted "
                 "ensemble does: set spawning.spawn_scheme: we, or remove inherit_velocities");
  }
  // Every molecular engine continues a task's start velocities; the built-in engine only with
  // Langevin dynamics (the driver also asks the engine: Engine::capabilities()).
  if (is_builtin(raw)) {
    const bool langevin =
        raw.usable("engine.integrator") && raw.value("engine.integrator") == "langevin";
    if (!langevin) {
      problems.add(inherit.value_at, "spawning.inherit_velocities",
                   "the built-in overdamped integrator has no velocities to continue: set "
                   "engine.integrator: langevin, or remove inherit_velocities");
    }
  }
}

void check_recycle(const RawConfig& raw, Problems& problems) {
  const Entry& target = raw.at("spawning.recycle_target");
  if (!target.present || !target.valid || target.value.is_null()) return;
  if (!is_we(raw)) {
    problems.add(target.value_at, "spawning.recycle_target",
                 "recycles walkers that reach the target, which only the weighted ensemble "
                 "does: set spawning.spawn_scheme: we, or remove recycle_target");
  }
  std::string nbins_key;
  const auto n_bins = effective_n_bins(raw, &nbins_key);
  if (raw.usable(nbins_key) && target.value.size() != n_bins.size()) {
    problems.add(target.value_at, "spawning.recycle_target",
                 "has " + count(target.value.size(), "box", "boxes") + " but the CV space has " +
                     count(n_bins.size(), "dimension", "dimensions") + " (" + nbins_key +
                     "); give one [lo, hi] per CV axis");
  }
  const bool reduced =
      (raw.usable("output.record_selection") && !raw.value("output.record_selection").is_null()) ||
      (raw.usable("output.precision") && raw.value("output.precision") == "float32");
  if (reduced) {
    problems.add(target.value_at, "spawning.recycle_target",
                 "recycled walkers restart from a frame of iteration 0 (recycle_basis_index), "
                 "which a reduced record policy does not keep in full; remove "
                 "output.record_selection and output.precision: float32, or recycle_target");
  }
}

}  // namespace

void check_kinetics(const RawConfig& raw, Problems& problems) {
  check_inherit(raw, problems);
  check_recycle(raw, problems);
}

}  // namespace trails::config::detail
