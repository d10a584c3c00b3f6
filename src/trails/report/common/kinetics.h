// A weighted-ensemble run's kinetics for the reports (docs/kinetics.md): the recycled flux of
// every committed iteration (the ledger's recycling table) and the mean first-passage time it
// gives by the Hill relation (analysis/hill_mfpt.h) — the MFPT block of `trails status` and
// `trails analyze`, the running-estimate panel of `trails plot`'s convergence.png and its
// flux_convergence.png.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "trails/analysis/hill_mfpt.h"
#include "trails/report/common/convergence_picture.h"
#include "trails/store/run_store.h"

namespace trails::report {

struct KineticsSeries {
  std::vector<std::int64_t> iterations;
  std::vector<double> flux;           // weight recycled in each iteration
  std::vector<std::int64_t> walkers;  // walkers recycled in each iteration
  double tau = 0.0;                   // one iteration's segment (spawning.step × engine.dt)
  std::int64_t steps = 0;             // spawning.step: MD steps per iteration
  std::string unit;                   // "ps" (molecular engines, --tau-ps) or "time units"
  std::string tau_source;             // "--tau-ps" or "config"
};

// nullopt for a run that never recycled (no recycle_target).
std::optional<KineticsSeries> kinetics_series(const store::RunStore& store,
                                              const std::optional<double>& tau_ps);

analysis::HillMfpt kinetics_mfpt(const KineticsSeries& k, double discard_fraction);
nlohmann::json mfpt_json(const KineticsSeries& k, double discard_fraction);
// Lines of the MFPT block (each newline-terminated).
std::string mfpt_text(const nlohmann::json& mfpt);
// The running estimate after each iteration (NaN before any flux), for convergence.png.
ConvergencePanel mfpt_panel(const KineticsSeries& k, double discard_fraction);
// flux_convergence.png (docs/kinetics.md): the recycled flux per iteration with its tail mean,
// and the running MFPT with the value it converges to (the estimate over the whole series);
// the x label gives τ in steps and in the run's time unit.
std::vector<ConvergencePanel> flux_panels(const KineticsSeries& k, double discard_fraction);
// Its title: the estimate, the plateau ratio and whether it has converged.
std::string flux_title(const KineticsSeries& k, double discard_fraction);

}  // namespace trails::report
