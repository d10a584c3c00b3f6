// The input features of a learned CV space (compat:learned-features): frames (n_atoms × spatial_dim
// coordinates, plus a box per frame for periodic systems) → feature rows, for one or more named
// feature types. The built-in engine has one type, "coordinates" (the identity); OpenMM runs
// have distances | fitted_coords | phi_psi over system.feature_selection (features_factory.h).
// compute() is const, deterministic (the same bits for the same frames) and thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace trails::features {

class FeatureSource {
 public:
  virtual ~FeatureSource() = default;
  // The types this source can compute; the first is the configured adaptive_feature_type.
  virtual const std::vector<std::string>& types() const = 0;
  virtual int n_features(const std::string& type) const = 0;
  // n_frames × n_features(type) values. frames: n_frames × n_atoms × spatial_dim; boxes:
  // n_frames × 9 (vectors as rows) or empty. Throws core::InputError for an unknown type.
  virtual std::vector<double> compute(const std::string& type, std::span<const double> frames,
                                      std::int64_t n_frames,
                                      std::span<const double> boxes) const = 0;
  // True for the built-in engine's coordinates: features are the frames themselves.
  virtual bool is_identity() const { return false; }
};

// Features = the frames' n_values coordinates (type "coordinates").
std::unique_ptr<FeatureSource> make_coordinate_features(int n_values);

}  // namespace trails::features
