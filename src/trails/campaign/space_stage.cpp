#include "trails/campaign/space_stage.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "trails/analysis/pca.h"
#include "trails/analysis/tica.h"
#include "trails/analysis/vamp.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"

namespace trails::campaign {
namespace {

using analysis::FrameMatrix;
using analysis::RunningMoments;

analysis::RetrainOptions retrain_options(const config::LearnedSpaceConfig& l) {
  analysis::RetrainOptions o;
  o.policy = l.retrain_policy == config::RetrainPolicyKind::VampAdaptive
                 ? analysis::RetrainPolicy::VampAdaptive
                 : analysis::RetrainPolicy::Fixed;
  o.retrain_freq = l.retrain_freq;
  o.vamp_retrain_tol = l.vamp_retrain_tol;
  o.min_interval = l.retrain_min_interval;
  o.max_interval = l.retrain_max_interval.value_or(-1);
  return o;
}

// Covariances of y = (x - m) W from those of x: W^T C W (means projected likewise).
analysis::Covariances project_covariances(const analysis::Covariances& c,
                                          const analysis::LinearProjection& p) {
  const Eigen::MatrixXd& w = p.coefficients;
  analysis::Covariances out = c;
  out.mean_0 = w.transpose() * (c.mean_0 - p.mean);
  out.mean_t = w.transpose() * (c.mean_t - p.mean);
  out.c00 = w.transpose() * c.c00 * w;
  out.c0t = w.transpose() * c.c0t * w;
  out.ctt = w.transpose() * c.ctt * w;
  return out;
}

}  // namespace

SpaceStage::SpaceStage(const config::CampaignConfig& config, int n_features)
    : mode_(config.space_mode),
      options_(config.learned),
      seed_(config.random_seed),
      d_(n_features),
      k_(config.cv_dimension()),
      controller_(retrain_options(config.learned)) {
  TRAILS_CHECK(mode_ == "pca" || mode_ == "tica", "SpaceStage: space_mode pca or tica");
  TRAILS_CHECK(k_ >= 1 && k_ <= d_, "learned dimension within the feature count");
}

void SpaceStage::append_block(std::int64_t iteration,
                              std::span<const FrameHistory::WalkerSpan> spans,
                              std::span<const double> features) {
  Block b;
  b.iteration = iteration;
  b.first = blocks_.empty() ? 0
                            : blocks_.back().first +
                                  static_cast<std::int64_t>(blocks_.back().features.size()) / d_;
  b.spans.assign(spans.begin(), spans.end());
  b.features.assign(features.begin(), features.end());
  std::int64_t frames = 0;
  for (const auto& s : spans) frames += s.n_frames;
  TRAILS_CHECK(static_cast<std::int64_t>(features.size()) == frames * d_,
               "features match the walker spans");
  blocks_.push_back(std::move(b));
}

RunningMoments SpaceStage::block_moments(const Block& b) const {
  RunningMoments m(d_, options_.lagtime);
  std::vector<std::int64_t> lengths;
  for (const auto& s : b.spans) lengths.push_back(s.n_frames);
  const auto rows = static_cast<Eigen::Index>(b.features.size() / static_cast<std::size_t>(d_));
  Eigen::Map<const FrameMatrix> frames(b.features.data(), rows, d_);
  m.add_segments(frames, lengths);
  return m;
}

std::optional<double> SpaceStage::score(const RunningMoments& m) const {
  if (!projection_ || m.n_pairs() == 0) return std::nullopt;
  const auto cov = m.lagged({analysis::MeanRemoval::Separate, false});
  return analysis::vamp2_score(project_covariances(cov, *projection_));
}

std::vector<double> SpaceStage::project(std::span<const double> features) const {
  const auto& p = *projection_;
  const std::size_t n = features.size() / static_cast<std::size_t>(d_);
  std::vector<double> out(n * static_cast<std::size_t>(k_));
  for (std::size_t r = 0; r < n; ++r) {
    const double* x = features.data() + r * static_cast<std::size_t>(d_);
    for (int j = 0; j < k_; ++j) {
      double acc = 0.0;  // fixed order over features: independent of the batch size
      for (int i = 0; i < d_; ++i) acc += (x[i] - p.mean[i]) * p.coefficients(i, j);
      out[r * static_cast<std::size_t>(k_) + static_cast<std::size_t>(j)] = acc;
    }
  }
  return out;
}

void SpaceStage::fit(const RunningMoments& training) {
  analysis::LinearProjection p;
  if (mode_ == "tica") {
    analysis::TicaOptions o;
    o.dim = k_;
    const auto model = analysis::fit_tica(training, o);
    p = model.projection;
  } else {
    analysis::PcaOptions o;
    o.dim = k_;
    const auto model = analysis::fit_pca(training, o);
    p = model.projection;
  }
  if (p.output_dim() != k_) {
    throw core::InputError(fmt::format(
        "space_mode {}: the sampled coordinates span only {} independent direction(s), fewer "
        "than the {} learned dimension(s) len(n_bins) asks for; use fewer n_bins axes",
        mode_, p.output_dim(), k_));
  }
  projection_ = std::move(p);
  ++version_;
  // Grid box: data bounds of every re-projected frame, widened by 10 % of the span (row 94).
  lo_.assign(k_, std::numeric_limits<double>::infinity());
  hi_.assign(k_, -std::numeric_limits<double>::infinity());
  for (const auto& b : blocks_) {
    const auto y = project(b.features);
    for (std::size_t r = 0; r < y.size(); r += static_cast<std::size_t>(k_)) {
      for (int j = 0; j < k_; ++j) {
        lo_[j] = std::min(lo_[j], y[r + j]);
        hi_[j] = std::max(hi_[j], y[r + j]);
      }
    }
  }
  for (int j = 0; j < k_; ++j) {
    const double span = hi_[j] - lo_[j];
    const double pad = span > 0 ? 0.1 * span : 0.5;  // a constant projection still gets a box
    lo_[j] -= pad;
    hi_[j] += pad;
  }
}

std::vector<double> SpaceStage::add_iteration(std::int64_t iteration,
                                              std::span<const FrameHistory::WalkerSpan> spans,
                                              std::span<const double> features) {
  append_block(iteration, spans, features);
  RunningMoments current = block_moments(blocks_.back());
  if (options_.aggregate_memory) {
    memory_iterations_.push_back(iteration);
    memory_.push_back(current);
    if (memory_.size() == 1) first_block_frames_ = current.n_frames();
    core::Rng rng =
        core::Rng::stream(seed_, "feature-memory", static_cast<std::uint64_t>(iteration));
    const auto keep = analysis::prune_feature_memory(memory_.size(), first_block_frames_,
                                                     options_.max_adaptive_memory_frames, rng);
    if (keep.size() < memory_.size()) {
      std::vector<std::int64_t> its;
      std::vector<RunningMoments> kept;
      for (const auto i : keep) {
        its.push_back(memory_iterations_[i]);
        kept.push_back(std::move(memory_[i]));
      }
      memory_iterations_ = std::move(its);
      memory_ = std::move(kept);
    }
  }
  const std::optional<double> current_score =
      options_.retrain_policy == config::RetrainPolicyKind::VampAdaptive ? score(current)
                                                                         : std::nullopt;
  retrained_ = controller_.should_retrain(iteration, has_model(), current_score);
  if (retrained_) {
    if (options_.aggregate_memory) {
      RunningMoments training(d_, options_.lagtime);
      for (const auto& m : memory_) training.merge(m);  // chronological: deterministic bits
      fit(training);
    } else {
      fit(current);
    }
    controller_.notify_retrained(score(current));
  } else {
    controller_.notify_skipped();
  }
  return project(blocks_.back().features);
}

void SpaceStage::restore_features(std::int64_t iteration,
                                  std::span<const FrameHistory::WalkerSpan> spans,
                                  std::span<const double> features) {
  append_block(iteration, spans, features);
  // The memory's moments are a pure function of the blocks' features, so the state keeps only
  // which iterations it holds and they are recomputed here, bit for bit.
  if (std::binary_search(memory_iterations_.begin(), memory_iterations_.end(), iteration)) {
    memory_.push_back(block_moments(blocks_.back()));
  }
}

binning::UniformGrid SpaceStage::grid(const std::vector<int>& n_bins) const {
  TRAILS_CHECK(has_model(), "a learned grid needs a fitted model");
  return binning::UniformGrid(n_bins, lo_, hi_);
}

std::span<const double> SpaceStage::features_of(std::int64_t global) const {
  auto it = std::upper_bound(blocks_.begin(), blocks_.end(), global,
                             [](std::int64_t g, const Block& b) { return g < b.first; });
  TRAILS_CHECK(it != blocks_.begin(), "global frame index in range");
  const Block& b = *std::prev(it);
  const auto offset = static_cast<std::size_t>((global - b.first) * d_);
  TRAILS_CHECK(offset < b.features.size(), "global frame index in range");
  return std::span<const double>(b.features).subspan(offset, static_cast<std::size_t>(d_));
}

nlohmann::json SpaceStage::state() const {
  return {{"version", 1},
          {"mode", mode_},
          {"space_version", version_},
          {"projection", projection_ ? nlohmann::json(projection_->to_flat()) : nlohmann::json()},
          {"min_values", lo_},
          {"max_values", hi_},
          {"controller", controller_.state()},
          {"memory_iterations", memory_iterations_},
          {"first_block_frames", first_block_frames_}};
}

void SpaceStage::restore(const nlohmann::json& state) {
  if (!state.is_object() || state.value("version", 0) != 1 || state.value("mode", "") != mode_) {
    throw core::CorruptionError("ledger state: the learned-space state is missing or malformed");
  }
  version_ = state.at("space_version").get<std::int64_t>();
  projection_.reset();
  if (!state.at("projection").is_null()) {
    projection_ =
        analysis::LinearProjection::from_flat(state.at("projection").get<std::vector<double>>());
  }
  lo_ = state.at("min_values").get<std::vector<double>>();
  hi_ = state.at("max_values").get<std::vector<double>>();
  controller_.restore(state.at("controller"));
  memory_iterations_ = state.at("memory_iterations").get<std::vector<std::int64_t>>();
  memory_.clear();  // refilled by restore_features()
  blocks_.clear();
  first_block_frames_ = state.at("first_block_frames").get<std::int64_t>();
}

}  // namespace trails::campaign
