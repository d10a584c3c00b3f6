// Greedy VAMP-2 forward selection over column groups; feature-type ranking.
#include "trails/analysis/feature_selection.h"

#include <algorithm>
#include <numeric>

#include "trails/core/error.h"

namespace trails::analysis {

Covariances feature_selection_covariances(const RunningMoments& moments) {
  return moments.lagged(LaggedOptions{MeanRemoval::Shared, false});
}

FeatureSelection select_features(const Covariances& cov, const FeatureSelectionOptions& options) {
  const auto d = static_cast<int>(cov.c00.rows());
  if (cov.lagtime < 1 || d == 0)
    throw core::InputError("select_features: expected time-lagged covariances (lagtime >= 1)");
  if (options.max_groups == 0 || options.max_groups < -1)
    throw core::InputError("select_features: expected max_groups >= 1 or -1, got " +
                           std::to_string(options.max_groups));
  Vamp2Options score = options.score;
  score.dim = options.dim;
  std::vector<int> all(static_cast<std::size_t>(d));
  std::iota(all.begin(), all.end(), 0);

  FeatureSelection out;
  out.method = options.method;
  if (options.method == FeatureSelectionMethod::All) {
    out.columns = all;
    out.score = vamp2_score(cov, out.columns, score);
    return out;
  }
  std::vector<std::vector<int>> groups = options.groups;
  if (groups.empty())
    for (int c = 0; c < d; ++c) groups.push_back({c});
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].empty())
      throw core::InputError("select_features: group " + std::to_string(g) + " is empty");
    for (const int c : groups[g])
      if (c < 0 || c >= d)
        throw core::InputError("select_features: group " + std::to_string(g) + " has column " +
                               std::to_string(c) + ", expected [0, " + std::to_string(d) + ")");
  }
  const std::size_t limit =
      options.max_groups < 0 ? groups.size() : static_cast<std::size_t>(options.max_groups);
  std::vector<char> used(groups.size(), 0);
  std::vector<int> selected;
  double best = 0;
  auto with_group = [&](std::size_t g) {
    std::vector<int> cols = selected;
    cols.insert(cols.end(), groups[g].begin(), groups[g].end());
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    return cols;
  };
  while (out.groups_added.size() < limit && out.groups_added.size() < groups.size()) {
    double best_score = -std::numeric_limits<double>::infinity();
    std::size_t best_group = groups.size();
    for (std::size_t g = 0; g < groups.size(); ++g) {
      if (used[g]) continue;
      const double s = vamp2_score(cov, with_group(g), score);
      if (s > best_score) {
        best_score = s;
        best_group = g;
      }
    }
    if (best_group == groups.size() || !(best_score - best > options.min_gain)) break;
    selected = with_group(best_group);
    used[best_group] = 1;
    out.groups_added.push_back(static_cast<int>(best_group));
    out.gains.push_back(best_score - best);
    best = best_score;
  }
  out.columns = selected.empty() ? all : selected;
  out.score = selected.empty() ? vamp2_score(cov, out.columns, score) : best;
  return out;
}

std::vector<RankedFeatureType> rank_feature_types(
    const std::vector<FeatureTypeCandidate>& candidates, const Vamp2Options& score) {
  std::vector<RankedFeatureType> ranked;
  ranked.reserve(candidates.size());
  for (const auto& c : candidates) {
    RankedFeatureType r;
    r.name = c.name;
    if (c.moments == nullptr) {
      r.error = "no moments were accumulated";
    } else {
      try {
        r.score = vamp2_score(feature_selection_covariances(*c.moments), score);
      } catch (const core::Error& e) {
        r.error = e.what();
      }
    }
    ranked.push_back(std::move(r));
  }
  std::stable_sort(
      ranked.begin(), ranked.end(),
      [](const RankedFeatureType& a, const RankedFeatureType& b) { return a.score > b.score; });
  return ranked;
}

}  // namespace trails::analysis
