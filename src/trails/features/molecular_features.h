// Trails-MD's learned-space feature presets on molecular frames (docs/cvs.md, "Feature types in
// campaigns"): one cvs::CvSet per feature type (distances | fitted_coords | phi_psi over the
// feature atoms), as a FeatureSource. The campaign builds one from its configuration
// (campaign/features_factory.h); a stored model's features are rebuilt from the run it was
// trained in (spaces/stored_space_model.h).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "trails/cvs/cv_set.h"
#include "trails/features/feature_source.h"

namespace trails::features {

class MolecularFeatures final : public FeatureSource {
 public:
  // The first type added is the configured adaptive_feature_type.
  void add(const std::string& type, cvs::CvSet set);
  const std::vector<std::string>& types() const override { return types_; }
  int n_features(const std::string& type) const override;
  std::vector<double> compute(const std::string& type, std::span<const double> frames,
                              std::int64_t n_frames, std::span<const double> boxes) const override;

 private:
  const cvs::CvSet& set(const std::string& type) const;
  std::vector<std::string> types_;
  std::map<std::string, cvs::CvSet> sets_;
};

}  // namespace trails::features
