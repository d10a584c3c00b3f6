#include "trails/report/common/time_axis.h"

#include <cmath>

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::report {
using json = nlohmann::json;

TimeScale TimeAxis::readable(double largest_frames) const {
  if (!frame_ps) return {"frames", 1.0};
  const double ps = std::isfinite(largest_frames) ? largest_frames * *frame_ps : 0.0;
  if (ps >= 1e6) return {"µs", *frame_ps * 1e-6};
  if (ps >= 1e3) return {"ns", *frame_ps * 1e-3};
  if (ps >= 1.0 || ps <= 0.0) return {"ps", *frame_ps};
  return {"fs", *frame_ps * 1e3};
}

TimeAxis time_axis(const json& config, bool physical_time, const std::optional<double>& tau_ps) {
  const auto& spawning = config.value("spawning", json::object());
  const auto& engine = config.value("engine", json::object());
  const double step = spawning.value("step", 0.0);
  const double stride = spawning.value("stride", 0.0);
  TimeAxis t;
  if (tau_ps) {
    if (step <= 0 || stride <= 0) {
      throw core::InputError(
          "--tau-ps: the run's configuration has no spawning.step/stride to "
          "turn a segment length into a frame interval");
    }
    t.tau_ps = *tau_ps;
    t.frame_ps = *tau_ps * stride / step;
    t.source = "--tau-ps";
  } else if (physical_time && engine.contains("dt") && engine.at("dt").is_number() && stride > 0) {
    const double dt = engine.at("dt").get<double>();
    t.frame_ps = stride * dt;
    t.tau_ps = step * dt;
    t.source = "config";
  } else {
    t.source = "unknown";
  }
  return t;
}

TimeAxis run_time_axis(const store::RunStore& store, const std::optional<double>& tau_ps) {
  // A time step changed on resume leaves frames of different lengths: no physical time axis.
  std::optional<std::int64_t> dt_changed_at;
  for (const auto& c : store.config_changes()) {
    if (c.key == "engine.dt" && !dt_changed_at) dt_changed_at = c.iteration;
  }
  TimeAxis t = time_axis(
      store.meta().config,
      store.meta().engine_system.value("time_unit", "") == "ps" && !dt_changed_at, tau_ps);
  if (dt_changed_at && !tau_ps) {
    t.source = fmt::format("engine.dt changed on resume at iteration {}", *dt_changed_at);
  }
  return t;
}

}  // namespace trails::report
