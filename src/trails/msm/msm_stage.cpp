#include "trails/msm/msm_stage.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include "trails/analysis/counting.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"

namespace trails::msm {
namespace {

using json = nlohmann::json;
constexpr int kKMeansMaxIter = 200;  // deeptime KMeans max_iter in Trails-MD's estimator

}  // namespace

MsmStage::MsmStage(const config::MsmConfig& config, std::uint64_t seed, int cv_dim, bool overlap)
    : config_(config), seed_(seed), cv_dim_(cv_dim), overlap_(overlap), monitor_(config) {
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

void MsmStage::start(std::int64_t iteration, const features::FrameHistory& history,
                     double explored_fraction) {
  if (!config_.enabled || pending_ || built_at_ == iteration) return;
  if (iteration % config_.cadence != 0) return;
  if (history.frames() < config_.min_frames) return;
  pending_explored_ = explored_fraction;
  launch(iteration, history, overlap_);
}

MsmBuild MsmStage::rebuild_now(std::int64_t iteration, const features::FrameHistory& history,
                               double explored_fraction) {
  TRAILS_CHECK(!pending_, "MsmStage::rebuild_now while a build is pending");
  pending_explored_ = explored_fraction;
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
    out->explored_fraction = pending_explored_;
    monitor_.apply(*out);
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
    o.n_threads = kMsmThreads;
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
    centres_ = analysis::regular_space(view, std::sqrt(span2) / k, k, kMsmThreads);
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
          kMsmThreads);
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
  return {{"model", applied_model_},
          {"pending", pending_ ? json(*pending_) : json(nullptr)},
          {"pending_explored_fraction", pending_explored_},
          {"monitor", monitor_.state()}};
}

void MsmStage::restore(const json& state, const features::FrameHistory& history) {
  monitor_.restore(state.at("monitor"));
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
    pending_explored_ = state.value("pending_explored_fraction", 1.0);
    launch(it, history, overlap_);
  }
}

}  // namespace trails::msm
