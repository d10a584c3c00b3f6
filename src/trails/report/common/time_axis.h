// The physical length of a run's frames, for every report that shows times (`trails analyze`,
// `trails plot`, `trails msm --run`), and the readable unit a picture shows them in.
// A frame is stride × engine.dt long when the engine integrates in ps (a molecular engine);
// the built-in engine's dt is in reduced units, so its times stay in frames.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "trails/store/run_store.h"

namespace trails::report {

// Times in a picture: value = frames × per_frame, in `unit`.
struct TimeScale {
  std::string unit;  // "frames", "fs", "ps", "ns" or "µs"
  double per_frame = 1.0;
};

// Picoseconds per frame, or nullopt when the run's time unit is unknown (built-in engine).
struct TimeAxis {
  std::optional<double> frame_ps;
  std::optional<double> tau_ps;  // walker segment (step × dt)
  // "--tau-ps", "config", "unknown", or why there is none ("engine.dt changed on resume ...")
  std::string source;
  std::string unit() const { return frame_ps ? "ps" : "frames"; }
  double scale() const { return frame_ps.value_or(1.0); }
  // The unit in which `largest_frames` (the largest time a picture shows, in frames) reads as
  // 1 to 999 (fs below 1 ps; µs from 10^6 ps); frames when there is no physical time.
  TimeScale readable(double largest_frames) const;
};

// physical_time: the engine integrates in ps (RunMeta::engine_system), so engine.dt gives frames a
// physical length. tau_ps (--tau-ps) overrides: frame = tau_ps × stride / step.
TimeAxis time_axis(const nlohmann::json& config, bool physical_time,
                   const std::optional<double>& tau_ps);
// time_axis() of a run store: no physical time when engine.dt changed on resume (frames of
// different lengths), unless tau_ps is given.
TimeAxis run_time_axis(const store::RunStore& store, const std::optional<double>& tau_ps);

}  // namespace trails::report
