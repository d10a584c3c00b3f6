// Cross-field rules of the output block (the shards' record policy, docs/configuration.md):
// a policy that keeps only part of each frame must leave the run able to restart. A campaign
// restarts from the spawned frames; when the policy reduces the shards, the iteration that
// chooses them stores their full configurations next to its frames, which covers every restart
// only when each one is a frame of that same iteration (spawning.history_window: 0) and the
// CV space never re-reads history from the shards (space_mode: fixed). A position grid
// (output.position_precision) needs neither: the run restarts from the frames on the grid.
#include <string>

#include "trails/config/cross_checks.h"

namespace trails::config::detail {

void check_output(const RawConfig& raw, Problems& problems) {
  const Entry& selection = raw.at("output.record_selection");
  const Entry& precision = raw.at("output.precision");
  const bool selects = selection.present && selection.valid && !selection.value.is_null();
  const bool float32 = precision.present && precision.valid && precision.value == "float32";
  const Entry& grid = raw.at("output.position_precision");
  if (float32 && grid.present && grid.valid && grid.value != "exact") {
    problems.add(grid.value_at, "output.position_precision",
                 "output.precision: float32 keeps rounded floats and output.position_precision "
                 "a grid of fixed steps; set one of them (remove output.precision for the grid, "
                 "or output.position_precision for float32)");
  }
  if (!selects && !float32) return;
  const std::string key = selects ? "output.record_selection" : "output.precision";
  const Entry& reducing = selects ? selection : precision;
  const std::string what =
      selects ? "keeps only the selected atoms of each frame" : "float32 rounds the stored frames";
  const Entry& md = raw.at("engine.md_engine");
  if (selects && md.present && md.valid && md.value == "builtin") {
    problems.add(selection.value_at, "output.record_selection",
                 "a built-in run has one CV-space particle and no atoms to select; remove "
                 "output.record_selection (or set it to null)");
  }
  const Entry& window = raw.at("spawning.history_window");
  if (window.valid && (window.value.is_null() || window.value.get<int>() != 0)) {
    problems.add(reducing.value_at, key,
                 what +
                     ", so restarts from frames of earlier iterations would be impossible: "
                     "set spawning.history_window: 0 (spawn from the current iteration "
                     "only, whose chosen frames are stored in full), or remove " +
                     key +
                     (window.present ? " (spawning.history_window is " + window.value.dump() + ")"
                                     : " (spawning.history_window defaults to all history)"));
  }
  const Entry& space = raw.at("space_mode");
  if (space.valid && space.value != "fixed") {
    problems.add(reducing.value_at, key,
                 what + ", but space_mode: " + space.value.get<std::string>() +
                     " recomputes features from the stored frames on resume; use "
                     "space_mode: fixed or remove " +
                     key);
  }
}

}  // namespace trails::config::detail
