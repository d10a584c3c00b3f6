#include "trails/msm/convergence_monitor.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace trails::msm {
namespace {

using json = nlohmann::json;

double rel_change(double p, double c) {
  return std::abs(c - p) / std::max({std::abs(p), std::abs(c), 1e-12});
}

}  // namespace

ConvergenceMonitor::Verdict ConvergenceMonitor::timescales_verdict(const MsmBuild& b) {
  const auto& c = config_.criteria;
  std::vector<double> cur;
  for (const double t : b.timescales) {
    if (std::isfinite(t) && static_cast<int>(cur.size()) < c.its_n) cur.push_back(t);
  }
  bool ok = false;
  std::string detail = "baseline";
  if (!prev_timescales_.empty() && prev_timescales_.size() == cur.size() && !cur.empty()) {
    double m = 0.0;
    for (std::size_t i = 0; i < cur.size(); ++i)
      m = std::max(m, rel_change(prev_timescales_[i], cur[i]));
    ok = m < *c.its_tol;
    detail = fmt::format("max relative change {:.4g} {} {}", m, ok ? "<" : ">=", *c.its_tol);
  }
  prev_timescales_ = cur;
  return {ok, "implied_timescales: " + detail};
}

ConvergenceMonitor::Verdict ConvergenceMonitor::vamp2_verdict(const MsmBuild& b) {
  const auto& c = config_.criteria;
  bool ok = false;
  std::string detail = "baseline";
  if (prev_vamp2_ && b.vamp2) {
    const double r = rel_change(*prev_vamp2_, *b.vamp2);
    ok = r < *c.vamp2_tol;
    detail = fmt::format("relative change {:.4g} {} {}", r, ok ? "<" : ">=", *c.vamp2_tol);
  }
  prev_vamp2_ = b.vamp2;
  return {ok, "vamp2: " + detail};
}

// sigma_ij = sqrt(T_ij (1 - T_ij) / (c_i + 1)), flux F_ij = pi_i T_ij
// (compat:convergence-monitor).
ConvergenceMonitor::Verdict ConvergenceMonitor::transition_matrix_verdict(const MsmBuild& b) const {
  const auto& c = config_.criteria;
  double fmax = 0.0;
  for (Eigen::Index i = 0; i < b.T.rows(); ++i)
    fmax = std::max(fmax, b.pi[i] * b.T.row(i).maxCoeff());
  const double cut = fmax > 0 ? c.tm_min_flux * fmax : c.tm_min_flux;
  double metric = 0.0;
  for (Eigen::Index i = 0; i < b.T.rows(); ++i) {
    const double ci = b.C.row(i).sum();
    for (Eigen::Index j = 0; j < b.T.cols(); ++j) {
      const double t = b.T(i, j);
      if (b.pi[i] * t > cut && t > 0)
        metric = std::max(metric, std::sqrt(t * (1 - t) / (ci + 1)) / t);
    }
  }
  const bool ok = metric < *c.tm_tol;
  return {ok, fmt::format("transition_matrix: max sigma/T {:.4g} {} {}", metric,
                          ok ? "<" : ">=", *c.tm_tol)};
}

ConvergenceMonitor::Verdict ConvergenceMonitor::populations_verdict(const MsmBuild& b) {
  const auto& c = config_.criteria;
  std::vector<double> cur = b.metastable_populations;
  std::sort(cur.begin(), cur.end(), std::greater<>());
  bool ok = false;
  std::string detail = "baseline";
  if (cur.empty()) {
    detail = fmt::format("no PCCA+ sets ({} active states, n_metastable {})", b.active_set.size(),
                         b.n_metastable);
  } else if (prev_populations_.size() == cur.size()) {
    double d = 0.0;
    for (std::size_t i = 0; i < cur.size(); ++i) d += std::abs(cur[i] - prev_populations_[i]);
    ok = d < *c.populations_tol;
    detail = fmt::format("sum |change| of populations {:.4g} {} {}", d,
                         ok ? "<" : ">=", *c.populations_tol);
  }
  prev_populations_ = cur;
  return {ok, "stationary_distribution: " + detail};
}

// The slowest timescale with a finite value and a finite error (Trails-MD: errors[0] over the
// first finite timescale; the same index keeps both of one process).
ConvergenceMonitor::Verdict ConvergenceMonitor::statistical_error_verdict(const MsmBuild& b) const {
  const auto& c = config_.criteria;
  bool ok = false;
  std::string detail = "no finite timescale with an error";
  for (std::size_t i = 0; i < b.timescales.size() && i < b.timescale_errors.size(); ++i) {
    if (std::isfinite(b.timescales[i]) && std::isfinite(b.timescale_errors[i]) &&
        b.timescales[i] != 0) {
      const double r = b.timescale_errors[i] / std::abs(b.timescales[i]);
      ok = r < *c.error_tol;
      detail = fmt::format("std/t{} {:.4g} {} {}", i + 2, r, ok ? "<" : ">=", *c.error_tol);
      break;
    }
  }
  return {ok, "statistical_error: " + detail};
}

void ConvergenceMonitor::judge(MsmBuild& b) {
  const auto& c = config_.criteria;
  std::vector<Verdict> results;
  if (c.its_tol) results.push_back(timescales_verdict(b));
  if (c.vamp2_tol) results.push_back(vamp2_verdict(b));
  if (c.tm_tol) results.push_back(transition_matrix_verdict(b));
  if (c.populations_tol) results.push_back(populations_verdict(b));
  if (c.error_tol) results.push_back(statistical_error_verdict(b));
  bool all = !results.empty(), any = false;
  std::string details;
  for (const auto& [ok, d] : results) {
    all = all && ok;
    any = any || ok;
    details += (details.empty() ? "" : "; ") + d;
  }
  const bool all_mode = config_.convergence_mode == config::ConvergenceMode::All;
  b.criteria_met = all_mode ? all : any;
  b.criteria = details;
  streak_ = b.criteria_met ? streak_ + 1 : 0;
  if (!converged_ && config_.convergence_patience > 0 && streak_ >= config_.convergence_patience) {
    if (!b.lag_guard_ok) {
      spdlog::warn(
          "MSM criteria met at iteration {} but not certified: msm.lagtime {} x 5 exceeds "
          "the shortest segment ({} frames)",
          b.iteration, config_.lagtime, b.min_segment);
    } else if (b.explored_fraction < config_.min_explored_fraction) {
      // The model can be self-consistent on a small explored region (docs/analysis.md).
      spdlog::warn(
          "MSM criteria met at iteration {} but not certified: {:.1f} % of the bins are "
          "explored, below msm.min_explored_fraction {}",
          b.iteration, 100.0 * b.explored_fraction, config_.min_explored_fraction);
    } else {
      converged_ = true;
      reason_ =
          fmt::format("MSM convergence: criteria ({}) satisfied for {} consecutive build(s). [{}]",
                      all_mode ? "all" : "any", streak_, details);
    }
  }
}

void ConvergenceMonitor::apply(MsmBuild& b) {
  b.lag_guard_ok = static_cast<std::int64_t>(config_.lagtime) * 5 <= b.min_segment;
  if (!b.note.empty()) {  // no model: Trails-MD only warns; the monitor is not updated
    spdlog::warn("MSM build at iteration {}: {}", b.iteration, b.note);
  } else {
    judge(b);
    std::string ts;
    for (const double t : b.timescales) ts += fmt::format("{}{:.4g}", ts.empty() ? "" : ", ", t);
    spdlog::info("MSM(iteration={}, lag={}, active_states={}/{}, t=[{}], VAMP2={:.6g}){} — {} [{}]",
                 b.iteration, b.lag, b.active_set.size(), b.n_microstates, ts,
                 b.vamp2.value_or(NAN), b.refit ? " refit" : "",
                 b.criteria_met ? "criteria met" : "criteria not met", b.criteria);
  }
  b.streak = streak_;
  b.converged = converged_;
  b.reason = reason_;
}

json ConvergenceMonitor::state() const {
  json prev_ts = prev_timescales_;
  return {{"streak", streak_},
          {"converged", converged_},
          {"reason", reason_},
          {"prev_timescales", prev_ts},
          {"prev_vamp2", prev_vamp2_ ? json(*prev_vamp2_) : json(nullptr)},
          {"prev_populations", prev_populations_}};
}

void ConvergenceMonitor::restore(const json& mon) {
  streak_ = mon.at("streak").get<int>();
  converged_ = mon.at("converged").get<bool>();
  reason_ = mon.at("reason").get<std::string>();
  prev_timescales_ = mon.at("prev_timescales").get<std::vector<double>>();
  if (mon.at("prev_vamp2").is_number()) prev_vamp2_ = mon.at("prev_vamp2").get<double>();
  prev_populations_ = mon.value("prev_populations", std::vector<double>{});
}

}  // namespace trails::msm
