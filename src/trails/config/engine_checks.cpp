// The engine's cross-field rules that are no one engine's (cross_checks.h): the chosen engine's
// module's rules (config/engines/), built-in engine keys only with it, a molecular engine's time
// step, and system.start refused where a structure is the start.
#include <string>

#include "trails/config/convert.h"
#include "trails/config/cross_checks.h"
#include "trails/config/engines/engine_module.h"
#include "trails/config/schema.h"

namespace trails::config::detail {

using json = nlohmann::json;

// engine.dt in the molecular engines' own unit, ps: an all-atom step is 0.5-4 fs and a
// coarse-grained one up to 40 fs, so a value past 0.05 ps is a unit slip (2.0 meant as fs,
// i.e. 0.002) and one below 1e-5 ps (0.01 fs) one the other way. Said by `trails check`,
// before a run that would blow up at its first segment.
void check_md_time_step(const RawConfig& raw, const std::string& engine, Problems& problems) {
  const Entry& dt = raw.at("engine.dt");
  if (!dt.present || !dt.valid || !dt.value.is_number()) return;
  const double v = dt.value.get<double>();
  const std::string fs = format_number(v * 1000.0);
  if (v > 0.05) {
    problems.add(dt.value_at, "engine.dt",
                 format_number(v) + " ps (" + fs + " fs) is not an MD time step: " + engine +
                     " steps in ps, so 2 fs is 0.002; write engine.dt in ps (at most 0.05, "
                     "a coarse-grained step)");
  } else if (v < 1e-5) {
    problems.add(dt.value_at, "engine.dt",
                 format_number(v) + " ps (" + fs + " fs) is far below any MD time step: " + engine +
                     " steps in ps, so 2 fs is 0.002");
  }
}

void check_engine(const RawConfig& raw, Problems& problems) {
  if (!raw.blocks.count("engine")) return;  // "missing required block" already said it
  const Entry& md = raw.at("engine.md_engine");
  if (md.present && !md.valid) return;  // a bad md_engine value: do not guess which was meant
  // The chosen engine's own rules (config/engines/); unset: Trails-MD's default engine's.
  if (const EngineModule* module = engine_module(md.value.get<std::string>());
      module != nullptr && module->check != nullptr) {
    module->check(raw, problems);
  }
  if (is_builtin(raw)) return;
  for (const auto& [path, e] : raw.entries) {
    if (e.present && e.spec->support == Support::BuiltinOnly) {
      problems.add(e.key_at, path,
                   "is a built-in engine key, only valid with "
                   "`engine.md_engine: builtin`; remove it");
    }
  }
}

// Start points are coordinates of point systems; a molecular engine starts from its structure.
void refuse_start_point(const RawConfig& raw, Problems& problems, const std::string& who) {
  const Entry& start = raw.at("system.start");
  if (start.present && start.valid && !start.value.is_null()) {
    problems.add(start.value_at, "system.start",
                 who +
                     " starts from system.conf_file; system.start gives points of a point "
                     "system: remove it");
  }
}

}  // namespace trails::config::detail
