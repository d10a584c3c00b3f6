#include "trails/report/common/kinetics.h"

#include <cmath>

#include <fmt/format.h>

#include "trails/report/common/number_text.h"
#include "trails/report/common/time_axis.h"

namespace trails::report {
using json = nlohmann::json;

std::optional<KineticsSeries> kinetics_series(const store::RunStore& store,
                                              const std::optional<double>& tau_ps) {
  const auto rows = store.recycling();
  if (rows.empty()) return std::nullopt;
  KineticsSeries k;
  for (const auto& r : rows) {
    k.iterations.push_back(r.iteration);
    k.flux.push_back(r.flux);
    k.walkers.push_back(r.walkers);
  }
  const TimeAxis t = run_time_axis(store, tau_ps);
  if (t.tau_ps) {
    k.tau = *t.tau_ps;
    k.unit = "ps";
  } else {  // the built-in engine: its own reduced time unit
    const auto& config = store.meta().config;
    k.tau = config.at("spawning").value("step", 0.0) * config.at("engine").value("dt", 0.0);
    k.unit = "time units";
  }
  k.steps = store.meta().config.at("spawning").value("step", std::int64_t{0});
  k.tau_source = tau_ps ? "--tau-ps" : "config";
  return k;
}

analysis::HillMfpt kinetics_mfpt(const KineticsSeries& k, double discard_fraction) {
  return analysis::steady_state_mfpt(k.flux, k.tau, discard_fraction);
}

json mfpt_json(const KineticsSeries& k, double discard_fraction) {
  const auto m = kinetics_mfpt(k, discard_fraction);
  std::int64_t recycled = 0;
  for (const auto w : k.walkers) recycled += w;
  return {{"mfpt", m.mfpt ? json(*m.mfpt) : json(nullptr)},
          {"rate", m.mfpt ? json(1.0 / *m.mfpt) : json(nullptr)},
          {"unit", k.unit},
          {"tau", k.tau},
          {"tau_source", k.tau_source},
          {"discard_fraction", discard_fraction},
          {"iterations", m.n_iterations},
          {"flux_events", m.n_flux_events},
          {"recycled_walkers", recycled},
          {"tail_mean_flux", m.tail_mean_flux},
          {"plateau_ratio", m.plateau_ratio ? json(*m.plateau_ratio) : json(nullptr)},
          {"converged", m.converged}};
}

std::string mfpt_text(const json& m) {
  const std::string unit = m.at("unit").get<std::string>();
  std::string out;
  if (m.at("mfpt").is_number()) {
    const double t = m.at("mfpt").get<double>();
    out += fmt::format(
        "mfpt            {:.6g} {} (rate {:.6g} per {}; Hill relation, τ {:.6g} {})\n", t, unit,
        1.0 / t, unit == "ps" ? "ps" : "time unit", m.at("tau").get<double>(), unit);
  } else {
    out += "mfpt            none yet: no weight has reached the recycling target in the tail\n";
  }
  out += fmt::format(
      "                flux over {} iterations ({} with arrivals, {} walkers recycled), first {} "
      "% discarded; tail mean {:.6g} per iteration; plateau {}; {}\n",
      m.at("iterations").get<int>(), m.at("flux_events").get<int>(),
      m.at("recycled_walkers").get<std::int64_t>(), 100.0 * m.at("discard_fraction").get<double>(),
      m.at("tail_mean_flux").get<double>(),
      m.at("plateau_ratio").is_number() ? fmt::format("{:.3f}", m.at("plateau_ratio").get<double>())
                                        : "n/a",
      m.at("converged").get<bool>() ? "converged"
                                    : "not converged (needs plateau 0.8–1.25 and ≥ 10 arrivals)");
  return out;
}

namespace {

// The estimate the run had after each iteration i: the same tail rule on flux[0..i] (NaN while
// that tail has no flux).
std::vector<double> running_mfpt(const KineticsSeries& k, double discard_fraction) {
  std::vector<double> prefix(k.flux.size() + 1, 0.0);
  for (std::size_t i = 0; i < k.flux.size(); ++i) prefix[i + 1] = prefix[i] + k.flux[i];
  std::vector<double> out;
  for (std::size_t i = 0; i < k.flux.size(); ++i) {
    const std::size_t n = i + 1;
    const auto skip =
        static_cast<std::size_t>(std::floor(static_cast<double>(n) * discard_fraction));
    const double mean = (prefix[n] - prefix[skip]) / static_cast<double>(n - skip);
    out.push_back(mean > 0.0 ? k.tau / mean : NAN);
  }
  return out;
}

}  // namespace

ConvergencePanel mfpt_panel(const KineticsSeries& k, double discard_fraction) {
  ConvergencePanel p{fmt::format("MFPT ({})", k.unit), "", "", "set logscale y\n"};
  const auto running = running_mfpt(k, discard_fraction);
  for (std::size_t i = 0; i < running.size(); ++i) {
    p.data += fmt::format("{} {}\n", k.iterations[i], round_trip_or_nan(running[i]));
  }
  p.plot = fmt::format(
      "DATA using 1:2 with lines lw 2 lc rgb '#762a83' title 'WE MFPT (Hill, first {:.0f} % "
      "dropped)'",
      100.0 * discard_fraction);
  return p;
}

std::string flux_title(const KineticsSeries& k, double discard_fraction) {
  const auto est = kinetics_mfpt(k, discard_fraction);
  if (!est.mfpt)
    return "Weighted-ensemble flux and MFPT (Hill relation): no arrivals in the tail yet";
  return fmt::format(
      "Weighted-ensemble flux and MFPT (Hill relation, first {:.0f} % dropped): {:.4g} {}, "
      "plateau {}, {}",
      100.0 * discard_fraction, *est.mfpt, k.unit,
      est.plateau_ratio ? fmt::format("{:.2f}", *est.plateau_ratio) : std::string("n/a"),
      est.converged ? "converged" : "not converged");
}

std::vector<ConvergencePanel> flux_panels(const KineticsSeries& k, double discard_fraction) {
  const auto est = kinetics_mfpt(k, discard_fraction);
  const auto skip =
      static_cast<std::size_t>(std::floor(static_cast<double>(k.flux.size()) * discard_fraction));
  ConvergencePanel flux{"recycled flux (weight per iteration)", "", "", "set yrange [0:*]\n"};
  for (std::size_t i = 0; i < k.flux.size(); ++i) {
    flux.data += fmt::format("{} {} {}\n", k.iterations[i], round_trip_or_nan(k.flux[i]),
                             i >= skip ? round_trip_or_nan(est.tail_mean_flux) : "NaN");
  }
  flux.plot = fmt::format(
      "DATA using 1:2 with impulses lw 2 lc rgb '#2166ac' title 'weight recycled', DATA using "
      "1:3 with lines dt 2 lw 2 lc rgb '#b2182b' title 'tail mean {:.3g}'",
      est.tail_mean_flux);

  const auto running = running_mfpt(k, discard_fraction);
  ConvergencePanel mfpt{fmt::format("MFPT ({})", k.unit), "", "", ""};
  bool any = false;
  for (std::size_t i = 0; i < running.size(); ++i) {
    any = any || std::isfinite(running[i]);
    mfpt.data += fmt::format("{} {} {}\n", k.iterations[i], round_trip_or_nan(running[i]),
                             round_trip_or_nan(est.mfpt.value_or(NAN)));
  }
  mfpt.settings =
      fmt::format("set xlabel 'iteration (τ = {} steps = {:.6g} {})'\n", k.steps, k.tau, k.unit);
  if (!any) {  // nothing has arrived: an empty panel that says so
    mfpt.settings += "set yrange [0:1]\nunset ytics\n";
    mfpt.plot =
        "DATA using 1:(NaN) notitle, 0.5 with lines lc rgb '#ffffff' title 'no weight "
        "has reached the recycling target yet'";
    return {flux, mfpt};
  }
  mfpt.settings += "set logscale y\n";
  mfpt.plot = fmt::format(
      "DATA using 1:2 with lines lw 2 lc rgb '#762a83' title 'running estimate', DATA using 1:3 "
      "with lines dt 2 lw 2 lc rgb '#1b7837' title 'estimate {:.4g}'",
      *est.mfpt);
  return {flux, mfpt};
}

}  // namespace trails::report
