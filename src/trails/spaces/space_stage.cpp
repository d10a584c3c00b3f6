#include "trails/spaces/space_stage.h"

#include <fmt/format.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "trails/analysis/feature_selection.h"
#include "trails/analysis/pca.h"
#include "trails/analysis/tica.h"
#include "trails/analysis/vamp.h"
#include "trails/core/error.h"
#include "trails/core/rng.h"

namespace trails::spaces {
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

// The covariances of the scaled columns x'_i = (x_c - lo_c) / s_c, c = columns[i] (MinMax
// compat:feature-scaling, restricted to the selected columns).
analysis::Covariances scaled_columns(const analysis::Covariances& c,
                                     const std::vector<int>& columns, const std::vector<double>& lo,
                                     const std::vector<double>& s) {
  const auto n = static_cast<Eigen::Index>(columns.size());
  analysis::Covariances out;
  out.lagtime = c.lagtime;
  out.n_samples = c.n_samples;
  out.mean_removed = c.mean_removed;
  out.symmetrized = c.symmetrized;
  const auto sub_vec = [&](const Eigen::VectorXd& v, bool shift) {
    Eigen::VectorXd r(n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const auto col = static_cast<std::size_t>(columns[static_cast<std::size_t>(i)]);
      r(i) = ((shift ? v(static_cast<Eigen::Index>(col)) - lo[col]
                     : v(static_cast<Eigen::Index>(col))) /
              s[col]);
    }
    return r;
  };
  const auto sub_mat = [&](const Eigen::MatrixXd& m) {
    if (m.size() == 0) return Eigen::MatrixXd();
    Eigen::MatrixXd r(n, n);
    for (Eigen::Index i = 0; i < n; ++i) {
      const auto ci = static_cast<std::size_t>(columns[static_cast<std::size_t>(i)]);
      for (Eigen::Index j = 0; j < n; ++j) {
        const auto cj = static_cast<std::size_t>(columns[static_cast<std::size_t>(j)]);
        r(i, j) = m(static_cast<Eigen::Index>(ci), static_cast<Eigen::Index>(cj)) / (s[ci] * s[cj]);
      }
    }
    return r;
  };
  // A mean-free side has a zero mean vector: it stays zero (no shift).
  out.mean_0 = sub_vec(c.mean_0, c.mean_removed);
  if (c.mean_t.size() > 0) out.mean_t = sub_vec(c.mean_t, c.mean_removed);
  out.c00 = sub_mat(c.c00);
  out.c0t = sub_mat(c.c0t);
  out.ctt = sub_mat(c.ctt);
  return out;
}

}  // namespace

SpaceStage::SpaceStage(const SpaceOptions& options, std::unique_ptr<features::FeatureSource> owned,
                       const features::FeatureSource* source, FrameLoader loader)
    : mode_(options.mode),
      options_(options.learned),
      seed_(options.seed),
      owned_source_(std::move(owned)),
      source_(owned_source_ ? owned_source_.get() : source),
      loader_(std::move(loader)),
      type_(source_->types().front()),
      d_(source_->n_features(type_)),
      k_(options.dim),
      controller_(retrain_options(options.learned)) {
  TRAILS_CHECK(mode_ == "pca" || mode_ == "tica", "SpaceStage: space_mode pca or tica");
  TRAILS_CHECK(k_ >= 1 && k_ <= d_, "learned dimension within the feature count");
}

SpaceStage::SpaceStage(const SpaceOptions& options, const features::FeatureSource& source,
                       FrameLoader loader)
    : SpaceStage(options, nullptr, &source, std::move(loader)) {}

SpaceStage::SpaceStage(const SpaceOptions& options, int n_features)
    : SpaceStage(options, features::make_coordinate_features(n_features), nullptr, {}) {}

void SpaceStage::Memory::merge(const Memory& other) {
  model.merge(other.model);
  if (selection) selection->merge(*other.selection);
  if (lo.empty()) {
    lo = other.lo;
    hi = other.hi;
    return;
  }
  for (std::size_t i = 0; i < lo.size(); ++i) {
    lo[i] = std::min(lo[i], other.lo[i]);
    hi[i] = std::max(hi[i], other.hi[i]);
  }
}

SpaceStage::Memory SpaceStage::empty_memory() const {
  std::optional<RunningMoments> sel;
  if (options_.selection.enabled) sel.emplace(d_, options_.selection.lagtime);
  return Memory{0, RunningMoments(d_, options_.lagtime), std::move(sel), {}, {}};
}

void SpaceStage::append_block(std::int64_t iteration,
                              std::span<const features::FrameHistory::WalkerSpan> spans,
                              std::vector<double> features) {
  Block b;
  b.iteration = iteration;
  b.first = blocks_.empty() ? 0
                            : blocks_.back().first +
                                  static_cast<std::int64_t>(blocks_.back().features.size()) / d_;
  b.spans.assign(spans.begin(), spans.end());
  std::int64_t frames = 0;
  for (const auto& s : spans) frames += s.n_frames;
  TRAILS_CHECK(static_cast<std::int64_t>(features.size()) == frames * d_,
               "features match the walker spans");
  b.features = std::move(features);
  blocks_.push_back(std::move(b));
}

SpaceStage::Memory SpaceStage::block_memory(const Block& b) const {
  Memory m = empty_memory();
  m.iteration = b.iteration;
  std::vector<std::int64_t> lengths;
  for (const auto& s : b.spans) lengths.push_back(s.n_frames);
  const auto rows = static_cast<Eigen::Index>(b.features.size() / static_cast<std::size_t>(d_));
  Eigen::Map<const FrameMatrix> frames(b.features.data(), rows, d_);
  m.model.add_segments(frames, lengths);
  if (m.selection) m.selection->add_segments(frames, lengths);
  if (rows > 0) {
    m.lo.assign(b.features.begin(), b.features.begin() + d_);
    m.hi = m.lo;
    for (Eigen::Index r = 1; r < rows; ++r) {
      for (int i = 0; i < d_; ++i) {
        m.lo[i] = std::min(m.lo[i], frames(r, i));
        m.hi[i] = std::max(m.hi[i], frames(r, i));
      }
    }
  }
  return m;
}

std::vector<double> SpaceStage::features_for(
    const std::string& type, std::span<const double> frames,
    std::span<const features::FrameHistory::WalkerSpan> spans,
    std::span<const double> boxes) const {
  std::int64_t n = 0;
  for (const auto& s : spans) n += s.n_frames;
  return source_->compute(type, frames, n, boxes);
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

bool SpaceStage::rank_feature_types(std::int64_t iteration,
                                    std::span<const features::FrameHistory::WalkerSpan> spans,
                                    std::span<const double> frames, std::span<const double> boxes,
                                    std::vector<double>& features) {
  // compat:feature-type-ranking: every candidate extracted on the current iteration, scored by
  // VAMP-2 at the selection lag over the walker segments; failing types score -inf and are skipped.
  const auto& candidates = options_.selection.candidate_feature_types;
  std::vector<std::vector<double>> values(candidates.size());
  std::vector<std::optional<RunningMoments>> moments(candidates.size());
  std::vector<analysis::FeatureTypeCandidate> scored;
  std::vector<std::int64_t> lengths;
  for (const auto& s : spans) lengths.push_back(s.n_frames);
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    analysis::FeatureTypeCandidate cand{candidates[c], nullptr};
    try {
      values[c] = features_for(candidates[c], frames, spans, boxes);
      const int d = source_->n_features(candidates[c]);
      Eigen::Map<const FrameMatrix> x(values[c].data(),
                                      static_cast<Eigen::Index>(values[c].size() / d), d);
      moments[c].emplace(d, options_.selection.lagtime);
      moments[c]->add_segments(x, lengths);
      cand.moments = &*moments[c];
    } catch (const core::Error& e) {
      spdlog::warn("iteration {}: feature type {} could not be computed: {}", iteration,
                   candidates[c], e.what());
    }
    scored.push_back(cand);
  }
  const auto ranked = analysis::rank_feature_types(scored);
  ranking_ = nlohmann::json::array();
  for (const auto& r : ranked) {
    ranking_.push_back(
        {{"type", r.name},
         {"vamp2", std::isfinite(r.score) ? nlohmann::json(r.score) : nlohmann::json()}});
  }
  type_chosen_ = true;
  std::string best = type_;
  if (!ranked.empty() && std::isfinite(ranked.front().score)) best = ranked.front().name;
  const bool changed = best != type_;
  if (changed) {
    spdlog::info("iteration {}: feature type {} -> {} (VAMP-2 ranking {})", iteration, type_, best,
                 ranking_.dump());
    switch_type(best);
  }
  const auto it = std::find(candidates.begin(), candidates.end(), type_);
  if (it != candidates.end() &&
      !values[static_cast<std::size_t>(it - candidates.begin())].empty()) {
    features = std::move(values[static_cast<std::size_t>(it - candidates.begin())]);
  } else {
    features = features_for(type_, frames, spans, boxes);
  }
  return changed;
}

void SpaceStage::switch_type(const std::string& type) {
  // A new type changes every feature: the column selection starts over and every stored block
  // (all history, for re-projection) is recomputed in the new type from its committed frames.
  type_ = type;
  d_ = source_->n_features(type_);
  columns_.reset();
  memory_.clear();
  for (auto& b : blocks_) {
    TRAILS_CHECK(static_cast<bool>(loader_), "a feature-type switch needs the committed frames");
    const Frames f = loader_(b.iteration, b.spans);
    b.features = features_for(type_, f.positions, b.spans, f.boxes);
    if (std::binary_search(memory_iterations_.begin(), memory_iterations_.end(), b.iteration)) {
      memory_.push_back(block_memory(b));
    }
  }
  for (std::size_t i = 1; i < blocks_.size(); ++i) {
    blocks_[i].first =
        blocks_[i - 1].first + static_cast<std::int64_t>(blocks_[i - 1].features.size()) / d_;
  }
}

void SpaceStage::select_columns(const Memory& training) {
  // compat:vamp-column-selection on the training memory's moments at the selection lag (the exact
  // walker segments stand in for Trails-MD's step // stride blocks).
  const auto& fs = options_.selection;
  const auto cov = analysis::feature_selection_covariances(*training.selection);
  analysis::FeatureSelectionOptions o;
  o.method = fs.greedy ? analysis::FeatureSelectionMethod::GreedyVamp
                       : analysis::FeatureSelectionMethod::All;
  o.max_groups = fs.max_features.value_or(-1);
  o.dim = fs.dim.value_or(-1);
  o.min_gain = fs.min_gain;
  auto sel = analysis::select_features(cov, o);
  if (static_cast<int>(sel.columns.size()) < k_) {
    // Fewer columns than learned dimensions: follow the same greedy path past min_gain.
    o.min_gain = -std::numeric_limits<double>::infinity();
    o.max_groups = k_;
    sel = analysis::select_features(cov, o);
  }
  columns_ = sel.columns;
  selection_score_ = sel.score;
}

void SpaceStage::fit(const Memory& training) {
  std::vector<int> cols;
  if (columns_) {
    cols = *columns_;
  } else {
    cols.resize(static_cast<std::size_t>(d_));
    std::iota(cols.begin(), cols.end(), 0);
  }
  // MinMax scaling with the training range; a constant feature keeps scale 1 (scikit-learn).
  std::vector<double> scale(static_cast<std::size_t>(d_), 1.0);
  for (int i = 0; i < d_; ++i) {
    const double r = training.hi[i] - training.lo[i];
    if (r > 0) scale[i] = r;
  }
  analysis::LinearProjection fitted;
  if (mode_ == "tica") {
    analysis::TicaOptions o;
    o.dim = k_;
    const auto cov = training.model.lagged({analysis::MeanRemoval::Separate, true});
    fitted = analysis::fit_tica(scaled_columns(cov, cols, training.lo, scale), o).projection;
  } else {
    analysis::PcaOptions o;
    o.dim = k_;
    fitted = analysis::fit_pca(
                 scaled_columns(training.model.instantaneous(true), cols, training.lo, scale), o)
                 .projection;
  }
  if (fitted.output_dim() != k_) {
    throw core::InputError(fmt::format(
        "space_mode {}: the sampled features span only {} independent direction(s), fewer "
        "than the {} learned dimension(s) len(n_bins) asks for; use fewer n_bins axes",
        mode_, fitted.output_dim(), k_));
  }
  // Fold the scaling and the column selection into one map over all d features:
  // y = (x'_sel - m') W' = (x_sel - (lo + s m')) diag(1/s) W'; unselected rows are zero.
  analysis::LinearProjection p;
  p.mean = Eigen::VectorXd::Zero(d_);
  p.coefficients = Eigen::MatrixXd::Zero(d_, k_);
  for (std::size_t i = 0; i < cols.size(); ++i) {
    const auto c = static_cast<std::size_t>(cols[i]);
    const auto ii = static_cast<Eigen::Index>(i);
    const auto cc = static_cast<Eigen::Index>(c);
    p.mean(cc) = training.lo[c] + scale[c] * fitted.mean(ii);
    for (int j = 0; j < k_; ++j) p.coefficients(cc, j) = fitted.coefficients(ii, j) / scale[c];
  }
  projection_ = std::move(p);
  ++version_;
  // Grid box: data bounds of every re-projected frame, widened by 10 % of the span
  // (compat:uniform-grid).
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

std::vector<double> SpaceStage::add_iteration(
    std::int64_t iteration, std::span<const features::FrameHistory::WalkerSpan> spans,
    std::span<const double> frames, std::span<const double> boxes) {
  const auto& fs = options_.selection;
  bool type_changed = false;
  std::vector<double> features;
  if (fs.enabled && !fs.candidate_feature_types.empty() &&
      (!type_chosen_ || iteration % fs.cadence == 0)) {
    type_changed = rank_feature_types(iteration, spans, frames, boxes, features);
  } else {
    features = features_for(type_, frames, spans, boxes);
  }
  append_block(iteration, spans, std::move(features));
  Memory current = block_memory(blocks_.back());
  if (options_.aggregate_memory) {
    memory_iterations_.push_back(iteration);
    memory_.push_back(current);
    if (memory_.size() == 1) first_block_frames_ = current.model.n_frames();
    core::Rng rng =
        core::Rng::stream(seed_, "feature-memory", static_cast<std::uint64_t>(iteration));
    const auto keep = analysis::prune_feature_memory(memory_.size(), first_block_frames_,
                                                     options_.max_adaptive_memory_frames, rng);
    if (keep.size() < memory_.size()) {
      std::vector<std::int64_t> its;
      std::vector<Memory> kept;
      for (const auto i : keep) {
        its.push_back(memory_iterations_[i]);
        kept.push_back(std::move(memory_[i]));
      }
      memory_iterations_ = std::move(its);
      memory_ = std::move(kept);
    }
  }
  // A new feature type makes the old model unusable: it is refitted whatever the policy says.
  const std::optional<double> current_score =
      options_.retrain_policy == config::RetrainPolicyKind::VampAdaptive && !type_changed
          ? score(current.model)
          : std::nullopt;
  retrained_ = type_changed || controller_.should_retrain(iteration, has_model(), current_score);
  if (retrained_) {
    Memory training = empty_memory();
    if (options_.aggregate_memory) {
      for (const auto& m : memory_) training.merge(m);  // chronological: deterministic bits
    } else {
      training = current;
    }
    if (fs.enabled && (!columns_ || iteration % fs.cadence == 0)) select_columns(training);
    fit(training);
    controller_.notify_retrained(score(current.model));
  } else {
    controller_.notify_skipped();
  }
  return project(blocks_.back().features);
}

void SpaceStage::restore_features(std::int64_t iteration,
                                  std::span<const features::FrameHistory::WalkerSpan> spans,
                                  std::span<const double> frames, std::span<const double> boxes) {
  append_block(iteration, spans, features_for(type_, frames, spans, boxes));
  // The memory's statistics are a pure function of the blocks' features, so the state keeps
  // only which iterations it holds and they are recomputed here, bit for bit.
  if (std::binary_search(memory_iterations_.begin(), memory_iterations_.end(), iteration)) {
    memory_.push_back(block_memory(blocks_.back()));
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
  return {{"version", 2},
          {"mode", mode_},
          {"space_version", version_},
          {"projection", projection_ ? nlohmann::json(projection_->to_flat()) : nlohmann::json()},
          {"min_values", lo_},
          {"max_values", hi_},
          {"controller", controller_.state()},
          {"memory_iterations", memory_iterations_},
          {"first_block_frames", first_block_frames_},
          {"feature_type", type_},
          {"feature_type_ranked", type_chosen_},
          {"feature_type_ranking", ranking_},
          {"selected_columns", columns_ ? nlohmann::json(*columns_) : nlohmann::json()},
          {"selection_score", columns_ ? nlohmann::json(selection_score_) : nlohmann::json()}};
}

void SpaceStage::restore(const nlohmann::json& state) {
  if (!state.is_object() || state.value("version", 0) != 2 || state.value("mode", "") != mode_) {
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
  type_ = state.at("feature_type").get<std::string>();
  d_ = source_->n_features(type_);
  type_chosen_ = state.at("feature_type_ranked").get<bool>();
  ranking_ = state.at("feature_type_ranking");
  columns_.reset();
  selection_score_ = 0;
  if (!state.at("selected_columns").is_null()) {
    columns_ = state.at("selected_columns").get<std::vector<int>>();
    selection_score_ = state.at("selection_score").get<double>();
  }
}

}  // namespace trails::spaces
