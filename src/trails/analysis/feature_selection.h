// VAMP-2 feature selection on moment matrices (compat:vamp-column-selection,
// compat:feature-type-ranking): greedy forward selection of feature columns (or column groups) and
// ranking of candidate feature types. Everything works on accumulated covariances, so no frames are
// re-read: a column subset uses the submatrices. Pure numerics. Cost: O(g^2) VAMP-2 evaluations of
// O(k^3) for g groups. Throws core::InputError.
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "trails/analysis/moments.h"
#include "trails/analysis/vamp.h"

namespace trails::analysis {

// Trails-MD's selection covariances: pairs within segments, both halves centred about
// (mean_0 + mean_t)/2, C00 from x_t, Ctt from x_{t+tau}, not symmetrised, no Bessel correction.
Covariances feature_selection_covariances(const RunningMoments& moments);

enum class FeatureSelectionMethod { GreedyVamp, All };

struct FeatureSelectionOptions {
  FeatureSelectionMethod method = FeatureSelectionMethod::GreedyVamp;
  std::vector<std::vector<int>> groups;  // column groups; empty: each column is its own group
  int max_groups = -1;                   // at most this many groups (max_features); -1: no limit
  int dim = -1;                          // score only the dim largest singular values; -1: all
  double min_gain = 1e-4;                // accept a group only if its gain is strictly larger
  // Score convention; dim above overrides score.dim.
  Vamp2Options score = Vamp2Options::trails_md_feature_selection();
};

struct FeatureSelection {
  std::vector<int> columns;       // sorted; all columns if nothing was selected or method All
  double score = 0;               // VAMP-2 of `columns`
  std::vector<int> groups_added;  // group indices in the order they were accepted
  std::vector<double> gains;      // gain of each accepted group
  FeatureSelectionMethod method = FeatureSelectionMethod::GreedyVamp;
};

// Greedy forward selection: best = 0; while groups remain and fewer than max_groups are chosen,
// score the current columns plus each remaining group; take the largest score (first on ties);
// accept it if score - best > min_gain, else stop.
FeatureSelection select_features(const Covariances& cov, const FeatureSelectionOptions& options);

// One candidate feature type: its name and its moments (at the selection lag, over the
// current iteration's segments). Non-owning.
struct FeatureTypeCandidate {
  std::string name;
  const RunningMoments* moments = nullptr;
};

struct RankedFeatureType {
  std::string name;
  double score = -std::numeric_limits<double>::infinity();  // -inf when it could not be scored
  std::string error;                                        // why, when score is -inf
};

// VAMP-2 of each candidate (Trails-MD: errors give -inf and the candidate is skipped), sorted by
// score descending; ties keep the candidates' order. The best is element 0.
std::vector<RankedFeatureType> rank_feature_types(
    const std::vector<FeatureTypeCandidate>& candidates,
    const Vamp2Options& score = Vamp2Options::trails_md_feature_selection());

}  // namespace trails::analysis
