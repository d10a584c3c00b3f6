#include "trails/msm/msm_stage.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <Eigen/Eigenvalues>

#include "trails/analysis/bayesian_msm.h"
#include "trails/analysis/counting.h"
#include "trails/analysis/msm_estimation.h"
#include "trails/analysis/msm_model.h"
#include "trails/analysis/pcca.h"
#include "trails/analysis/spectral.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"

namespace trails::msm {
namespace {

using json = nlohmann::json;
constexpr int kKMeansMaxIter = 200;  // deeptime KMeans max_iter in Trails-MD's estimator
// The build overlaps MD, which owns the cores; clustering results do not depend on threads.
constexpr int kThreads = 1;

double rel_change(double p, double c) {
  return std::abs(c - p) / std::max({std::abs(p), std::abs(c), 1e-12});
}

}  // namespace

MsmStage::MsmStage(const config::MsmConfig& config, std::uint64_t seed, int cv_dim, bool overlap)
    : config_(config), seed_(seed), cv_dim_(cv_dim), overlap_(overlap) {
  lags_.push_back(config_.lagtime);
  for (const int l : config_.lagtimes) {
    if (std::find(lags_.begin(), lags_.end(), l) == lags_.end()) lags_.push_back(l);
  }
}

MsmStage::~MsmStage() {
  if (future_.valid()) future_.wait();  // never leave a build running on destroyed state
}

void MsmStage::observe(std::int64_t first_frame,
                       const std::vector<features::FrameHistory::WalkerSpan>& spans) {
  TRAILS_CHECK(!pending_, "MsmStage::observe while a build is pending");
  std::int64_t g = first_frame;
  for (const auto& s : spans) {
    segments_.push_back({g, s.n_frames});
    g += s.n_frames;
  }
}

void MsmStage::start(std::int64_t iteration, const features::FrameHistory& history) {
  if (!config_.enabled || pending_ || built_at_ == iteration) return;
  if (iteration % config_.cadence != 0) return;
  if (history.frames() < config_.min_frames) return;
  launch(iteration, history, overlap_);
}

MsmBuild MsmStage::rebuild_now(std::int64_t iteration, const features::FrameHistory& history) {
  TRAILS_CHECK(!pending_, "MsmStage::rebuild_now while a build is pending");
  launch(iteration, history, false);
  return std::move(*join());
}

void MsmStage::launch(std::int64_t iteration, const features::FrameHistory& history, bool overlap) {
  pending_ = iteration;
  built_at_ = iteration;
  const std::size_t n_segments = segments_.size();
  if (overlap) {
    future_ = std::async(std::launch::async, [this, iteration, &history, n_segments] {
      return build(iteration, history, n_segments);
    });
  } else {
    ready_ = build(iteration, history, n_segments);
  }
}

std::optional<MsmBuild> MsmStage::join(double* wait_s) {
  const auto t0 = std::chrono::steady_clock::now();
  std::optional<MsmBuild> out;
  if (pending_) {
    out = ready_ ? std::move(*ready_) : future_.get();
    ready_.reset();
    pending_.reset();
    applied_model_ = std::move(pending_model_);
    pending_model_ = nullptr;
    apply_monitor(*out);
    latest_ = *out;
  }
  if (wait_s)
    *wait_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

void MsmStage::refit(const features::FrameHistory& history, std::size_t n_segments, std::int64_t) {
  std::vector<double> points;
  for (std::size_t s = 0; s < n_segments; ++s) {
    const Segment& seg = segments_[s];
    if (seg.n_frames < 2) continue;  // compat:drop-length-1-segments
    const double* p = history.point(seg.first).data();
    points.insert(points.end(), p, p + seg.n_frames * cv_dim_);
  }
  const auto n = static_cast<std::int64_t>(points.size()) / cv_dim_;
  const int k = static_cast<int>(std::min<std::int64_t>(config_.n_microstates, n));
  const auto view = analysis::points_view(points, n, cv_dim_);
  if (config_.cluster_method == config::ClusterMethod::KMeans) {
    analysis::KMeansOptions o;
    o.k = k;
    o.max_iter = kKMeansMaxIter;
    // One k-means++ stream per refit, all from random_seed (Trails-MD: fixed_seed=random_seed).
    o.seed =
        core::Rng::stream(seed_, "msm-kmeans", static_cast<std::uint64_t>(n_refits_)).next_u64();
    o.n_threads = kThreads;
    if (config_.stable_clustering && centres_.centres.rows() == k &&
        fit_space_version_ == space_version_) {
      o.initial_centres = centres_.centres;
    }
    centres_ = analysis::kmeans(view, o);
  } else {
    // RegularSpace(dmin = ||max - min|| / k, max_centers = k), as Trails-MD's estimator.
    double span2 = 0.0;
    for (int j = 0; j < cv_dim_; ++j) {
      double lo = std::numeric_limits<double>::infinity(), hi = -lo;
      for (std::int64_t p = 0; p < n; ++p) {
        lo = std::min(lo, points[static_cast<std::size_t>(p * cv_dim_ + j)]);
        hi = std::max(hi, points[static_cast<std::size_t>(p * cv_dim_ + j)]);
      }
      span2 += (hi - lo) * (hi - lo);
    }
    centres_ = analysis::regular_space(view, std::sqrt(span2) / k, k, kThreads);
  }
  fit_target_k_ = k;
  fit_space_version_ = space_version_;
  ++n_refits_;
  dtrajs_.clear();
  counted_segments_ = 0;
  const auto kc = centres_.centres.rows();
  counts_.assign(lags_.size(), Eigen::MatrixXd::Zero(kc, kc));
  reset_effective(static_cast<int>(kc));
  histogram_.assign(static_cast<std::size_t>(kc), 0.0);
  shared_centres_ = std::make_shared<const analysis::ClusterModel>(centres_);
  count_segments(0, n_segments, history);
}

void MsmStage::reset_effective(int k) {
  effective_.clear();
  if (!config_.bayesian) return;
  for (const int lag : lags_) effective_.emplace_back(k, lag);
}

void MsmStage::count_segments(std::size_t from, std::size_t to,
                              const features::FrameHistory& history) {
  TRAILS_CHECK(from == dtrajs_.size(), "MSM segments counted out of order");
  for (std::size_t s = from; s < to; ++s) {
    const Segment& seg = segments_[s];
    std::vector<int> labels;
    if (seg.n_frames >= 2) {
      const double* p = history.point(seg.first).data();
      labels = analysis::assign(
          centres_,
          analysis::points_view({p, static_cast<std::size_t>(seg.n_frames * cv_dim_)}, seg.n_frames,
                                cv_dim_),
          kThreads);
      for (std::size_t li = 0; li < lags_.size(); ++li) {
        const auto lag = static_cast<std::size_t>(lags_[li]);
        for (std::size_t t = 0; t + lag < labels.size(); ++t)
          counts_[li](labels[t], labels[t + lag]) += 1.0;
      }
      for (auto& e : effective_) e.add(labels);
      for (const int l : labels) histogram_[static_cast<std::size_t>(l)] += 1.0;
    }
    dtrajs_.push_back(std::move(labels));
  }
  counted_segments_ = to;
}

void MsmStage::estimate(MsmBuild& b) const {
  b.clustering = shared_centres_;
  b.clustering_version = n_refits_;
  b.bayesian = config_.bayesian;
  const auto kc = static_cast<int>(centres_.centres.rows());
  // Counts at a lag of the ladder: the kept sliding counts, or — Bayesian, as Trails-MD's
  // effective count mode — the kept effective counts; both incremental.
  const auto counts_at = [&](std::size_t li) {
    return config_.bayesian ? effective_[li].effective() : counts_[li];
  };
  const Eigen::MatrixXd counts = counts_at(0);
  b.active_set = analysis::largest_connected_set(counts);
  if (b.active_set.size() < 2) {
    b.note = "fewer than 2 states in the largest strongly connected set";
  } else {
    b.C = analysis::restrict_to_set(counts, b.active_set);
    const int n_active = static_cast<int>(b.active_set.size());
    const int nts = std::min(config_.n_timescales, n_active - 1);
    Eigen::VectorXd pi;
    if (!config_.bayesian) {
      auto mle = analysis::reversible_mle(b.C);
      b.T = std::move(mle.T);
      pi = std::move(mle.pi);
      b.mle_converged = mle.converged;
    } else {
      // Point estimate = the reversible MLE of the effective counts (BayesianMSM's prior);
      // each posterior sample its own seeded chain, so the errors do not depend on threads.
      analysis::CountModel cm;
      cm.lag = b.lag;
      cm.mode = analysis::CountMode::Effective;
      cm.counts = counts;
      cm.state_histogram = Eigen::Map<const Eigen::VectorXd>(histogram_.data(), kc);
      cm.connected_sets = {b.active_set};
      cm.active_set = b.active_set;
      cm.active_index.assign(static_cast<std::size_t>(kc), -1);
      for (int a = 0; a < n_active; ++a)
        cm.active_index[static_cast<std::size_t>(b.active_set[a])] = a;
      analysis::BayesianMsmOptions o;
      o.n_samples = config_.n_bayesian_samples;
      o.seed = core::Rng::stream(seed_, "msm-bayesian", static_cast<std::uint64_t>(b.iteration))
                   .next_u64();
      o.n_threads = kThreads;
      o.n_timescales = nts;
      o.keep_transition_matrices = false;
      const auto bayes = analysis::estimate_bayesian_msm(cm, o);
      b.T = bayes.point_estimate.transition_matrix();
      pi = bayes.point_estimate.stationary_distribution();
      b.mle_converged = bayes.point_estimate.mle_converged();
      b.timescale_errors.assign(bayes.timescales_std.data(),
                                bayes.timescales_std.data() + bayes.timescales_std.size());
    }
    b.pi.assign(pi.data(), pi.data() + pi.size());
    const Eigen::VectorXd ts = analysis::implied_timescales(b.T, pi, b.lag, nts);
    b.timescales.assign(ts.data(), ts.data() + ts.size());
    // VAMP-2 of a reversible MSM on its own data = sum of its squared eigenvalues
    // = ||D^1/2 T D^-1/2||_F^2 (the trivial eigenvalue 1 included).
    double v = 0.0;
    for (Eigen::Index i = 0; i < b.T.rows(); ++i) {
      for (Eigen::Index j = 0; j < b.T.cols(); ++j) v += pi(i) * b.T(i, j) * b.T(i, j) / pi(j);
    }
    b.vamp2 = v;
    for (const int st : b.active_set)
      b.counts_per_state.push_back(histogram_[static_cast<std::size_t>(st)]);
    // Right eigenvectors psi = D^-1/2 u of S = D^1/2 T D^-1/2 (sorted by |lambda|, psi_1 = 1).
    const Eigen::VectorXd sq = pi.array().sqrt();
    const Eigen::MatrixXd S = sq.asDiagonal() * b.T * sq.cwiseInverse().asDiagonal();
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(0.5 * (S + S.transpose()));
    std::vector<Eigen::Index> order(static_cast<std::size_t>(n_active));
    for (Eigen::Index i = 0; i < n_active; ++i) order[static_cast<std::size_t>(i)] = i;
    std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index c) {
      return std::abs(es.eigenvalues()(a)) > std::abs(es.eigenvalues()(c));
    });
    b.eigenvectors.resize(n_active, n_active - 1);
    for (Eigen::Index r = 1; r < n_active; ++r) {
      b.eigenvectors.col(r - 1) = sq.cwiseInverse().asDiagonal() *
                                  es.eigenvectors().col(order[static_cast<std::size_t>(r)]);
    }
    // PCCA+ when 2 <= m < n_active (Trails-MD skips it otherwise; the build then has no sets).
    if (config_.n_metastable) {
      b.n_metastable = *config_.n_metastable;
      if (b.n_metastable < n_active) {
        const analysis::MsmModel model(b.T, b.lag, true, b.active_set, pi);
        const auto p = analysis::pcca(model, b.n_metastable);
        b.memberships = p.memberships;
        b.metastable_assignments = p.assignments;
        b.metastable_populations.assign(p.populations.data(),
                                        p.populations.data() + p.populations.size());
        b.crispness = p.crispness;
      }
    }
  }
  for (const int lag : config_.lagtimes) {
    const auto li =
        static_cast<std::size_t>(std::find(lags_.begin(), lags_.end(), lag) - lags_.begin());
    std::vector<double> row(static_cast<std::size_t>(config_.n_timescales),
                            std::numeric_limits<double>::quiet_NaN());
    const Eigen::MatrixXd c = li == 0 ? counts : counts_at(li);
    const auto set = analysis::largest_connected_set(c);
    if (set.size() >= 2) {
      const auto mle = analysis::reversible_mle(analysis::restrict_to_set(c, set));
      const int nts = std::min<int>(config_.n_timescales, static_cast<int>(set.size()) - 1);
      const Eigen::VectorXd ts = analysis::implied_timescales(mle.T, mle.pi, lag, nts);
      for (int i = 0; i < nts; ++i) row[static_cast<std::size_t>(i)] = ts(i);
    }
    b.its_lags.push_back(lag);
    b.its.push_back(std::move(row));
  }
}

MsmBuild MsmStage::build(std::int64_t iteration, const features::FrameHistory& history,
                         std::size_t n_segments) {
  const auto t0 = std::chrono::steady_clock::now();
  MsmBuild b;
  b.iteration = iteration;
  b.lag = config_.lagtime;
  std::int64_t usable = 0;
  b.min_segment = std::numeric_limits<std::int64_t>::max();
  for (std::size_t s = 0; s < n_segments; ++s) {
    if (segments_[s].n_frames < 2) continue;
    usable += segments_[s].n_frames;
    b.min_segment = std::min(b.min_segment, segments_[s].n_frames);
  }
  if (usable == 0) b.min_segment = 0;
  b.frames = usable;
  const int k = static_cast<int>(std::min<std::int64_t>(config_.n_microstates, usable));
  if (k < 1) {
    b.note = "no walker segment longer than one frame";
  } else {
    b.refit = centres_.centres.rows() == 0 || k != fit_target_k_ || usable >= 2 * fit_frames_ ||
              fit_space_version_ != space_version_;
    if (b.refit) {
      refit(history, n_segments, usable);
      fit_frames_ = usable;
    } else {
      count_segments(counted_segments_, n_segments, history);
    }
    b.n_microstates = static_cast<int>(centres_.centres.rows());

    estimate(b);
  }
  pending_model_ = model_json(iteration);
  b.build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return b;
}

void MsmStage::apply_monitor(MsmBuild& b) {
  b.lag_guard_ok = static_cast<std::int64_t>(config_.lagtime) * 5 <= b.min_segment;
  if (!b.note.empty()) {  // no model: Trails-MD only warns; the monitor is not updated
    spdlog::warn("MSM build at iteration {}: {}", b.iteration, b.note);
  } else {
    const auto& c = config_.criteria;
    std::vector<std::pair<bool, std::string>> results;
    if (c.its_tol) {
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
      results.emplace_back(ok, "implied_timescales: " + detail);
    }
    if (c.vamp2_tol) {
      bool ok = false;
      std::string detail = "baseline";
      if (prev_vamp2_ && b.vamp2) {
        const double r = rel_change(*prev_vamp2_, *b.vamp2);
        ok = r < *c.vamp2_tol;
        detail = fmt::format("relative change {:.4g} {} {}", r, ok ? "<" : ">=", *c.vamp2_tol);
      }
      prev_vamp2_ = b.vamp2;
      results.emplace_back(ok, "vamp2: " + detail);
    }
    if (c.tm_tol) {
      // sigma_ij = sqrt(T_ij (1 - T_ij) / (c_i + 1)), flux F_ij = pi_i T_ij
      // (compat:convergence-monitor).
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
      results.emplace_back(ok, fmt::format("transition_matrix: max sigma/T {:.4g} {} {}", metric,
                                           ok ? "<" : ">=", *c.tm_tol));
    }
    if (c.populations_tol) {
      std::vector<double> cur = b.metastable_populations;
      std::sort(cur.begin(), cur.end(), std::greater<>());
      bool ok = false;
      std::string detail = "baseline";
      if (cur.empty()) {
        detail = fmt::format("no PCCA+ sets ({} active states, n_metastable {})",
                             b.active_set.size(), b.n_metastable);
      } else if (prev_populations_.size() == cur.size()) {
        double d = 0.0;
        for (std::size_t i = 0; i < cur.size(); ++i) d += std::abs(cur[i] - prev_populations_[i]);
        ok = d < *c.populations_tol;
        detail = fmt::format("sum |change| of populations {:.4g} {} {}", d,
                             ok ? "<" : ">=", *c.populations_tol);
      }
      prev_populations_ = cur;
      results.emplace_back(ok, "stationary_distribution: " + detail);
    }
    if (c.error_tol) {
      // The slowest timescale with a finite value and a finite error (Trails-MD: errors[0] over
      // the first finite timescale; the same index keeps both of one process).
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
      results.emplace_back(ok, "statistical_error: " + detail);
    }
    bool all = !results.empty(), any = false;
    std::string details;
    for (const auto& [ok, d] : results) {
      all = all && ok;
      any = any || ok;
      details += (details.empty() ? "" : "; ") + d;
    }
    b.criteria_met = config_.convergence_mode == config::ConvergenceMode::All ? all : any;
    b.criteria = details;
    streak_ = b.criteria_met ? streak_ + 1 : 0;
    if (!converged_ && config_.convergence_patience > 0 &&
        streak_ >= config_.convergence_patience) {
      if (!b.lag_guard_ok) {
        spdlog::warn(
            "MSM criteria met at iteration {} but not certified: msm.lagtime {} x 5 exceeds "
            "the shortest segment ({} frames)",
            b.iteration, config_.lagtime, b.min_segment);
      } else {
        converged_ = true;
        reason_ = fmt::format(
            "MSM convergence: criteria ({}) satisfied for {} consecutive build(s). [{}]",
            config_.convergence_mode == config::ConvergenceMode::All ? "all" : "any", streak_,
            details);
      }
    }
    std::string ts;
    for (const double t : b.timescales) ts += fmt::format("{}{:.4g}", ts.empty() ? "" : ", ", t);
    spdlog::info("MSM(iteration={}, lag={}, active_states={}/{}, t=[{}], VAMP2={:.6g}){} — {} [{}]",
                 b.iteration, b.lag, b.active_set.size(), b.n_microstates, ts,
                 b.vamp2.value_or(NAN), b.refit ? " refit" : "",
                 b.criteria_met ? "criteria met" : "criteria not met", details);
  }
  b.streak = streak_;
  b.converged = converged_;
  b.reason = reason_;
}

json MsmStage::model_json(std::int64_t iteration) const {
  const auto& c = centres_.centres;
  return {{"iteration", iteration},
          {"k", c.rows()},
          {"dim", cv_dim_},
          {"centres", std::vector<double>(c.data(), c.data() + c.size())},  // row-major
          {"counted_segments", counted_segments_},
          {"fit_frames", fit_frames_},
          {"fit_target_k", fit_target_k_},
          {"n_refits", n_refits_},
          {"fit_space_version", fit_space_version_}};
}

json MsmStage::state() const {
  json prev_ts = prev_timescales_;
  return {{"model", applied_model_},
          {"pending", pending_ ? json(*pending_) : json(nullptr)},
          {"monitor",
           {{"streak", streak_},
            {"converged", converged_},
            {"reason", reason_},
            {"prev_timescales", prev_ts},
            {"prev_vamp2", prev_vamp2_ ? json(*prev_vamp2_) : json(nullptr)},
            {"prev_populations", prev_populations_}}}};
}

void MsmStage::restore(const json& state, const features::FrameHistory& history) {
  const json& mon = state.at("monitor");
  streak_ = mon.at("streak").get<int>();
  converged_ = mon.at("converged").get<bool>();
  reason_ = mon.at("reason").get<std::string>();
  prev_timescales_ = mon.at("prev_timescales").get<std::vector<double>>();
  if (mon.at("prev_vamp2").is_number()) prev_vamp2_ = mon.at("prev_vamp2").get<double>();
  prev_populations_ = mon.value("prev_populations", std::vector<double>{});
  const json& model = state.at("model");
  if (!model.is_null()) {
    const int k = model.at("k").get<int>();
    const auto flat = model.at("centres").get<std::vector<double>>();
    TRAILS_CHECK(flat.size() == static_cast<std::size_t>(k) * static_cast<std::size_t>(cv_dim_),
                 "MSM state: centres do not match k x cv_dim");
    centres_ = {};
    centres_.centres = analysis::points_view(flat, k, cv_dim_);
    fit_frames_ = model.at("fit_frames").get<std::int64_t>();
    fit_target_k_ = model.at("fit_target_k").get<int>();
    n_refits_ = model.at("n_refits").get<std::int64_t>();
    fit_space_version_ = model.value("fit_space_version", std::int64_t{0});
    // A retrain rebuilds the model in the new space before its iteration commits (rebuild_now),
    // so a checkpointed model's centres are always of the restored history's space.
    TRAILS_CHECK(fit_space_version_ == space_version_,
                 "MSM state: centres of another learned space than the history's");
    const auto counted = model.at("counted_segments").get<std::size_t>();
    TRAILS_CHECK(counted <= segments_.size(), "MSM state covers more segments than the history");
    counts_.assign(lags_.size(), Eigen::MatrixXd::Zero(k, k));
    reset_effective(k);
    histogram_.assign(static_cast<std::size_t>(k), 0.0);
    shared_centres_ = std::make_shared<const analysis::ClusterModel>(centres_);
    count_segments(0, counted, history);
    applied_model_ = model;
    // The spawner's model of the last applied build: the same counts give the same estimate.
    MsmBuild last;
    last.iteration = model.value("iteration", std::int64_t{0});
    last.lag = config_.lagtime;
    last.n_microstates = k;
    estimate(last);
    latest_ = std::move(last);
  }
  if (state.at("pending").is_number_integer()) {
    // The pending build covered exactly the segments observed up to its iteration.
    const auto it = state.at("pending").get<std::int64_t>();
    launch(it, history, overlap_);
  }
}

}  // namespace trails::msm
