#include "trails/features/feature_source.h"

#include "trails/core/error.h"

namespace trails::features {
namespace {

class CoordinateFeatures final : public FeatureSource {
 public:
  explicit CoordinateFeatures(int n) : n_(n) {}
  const std::vector<std::string>& types() const override { return types_; }
  int n_features(const std::string& type) const override {
    check(type);
    return n_;
  }
  std::vector<double> compute(const std::string& type, std::span<const double> frames, std::int64_t,
                              std::span<const double>) const override {
    check(type);
    return {frames.begin(), frames.end()};
  }
  bool is_identity() const override { return true; }

 private:
  void check(const std::string& type) const {
    if (type != types_[0])
      throw core::InputError("the built-in engine has no feature type " + type);
  }
  int n_;
  std::vector<std::string> types_{"coordinates"};
};

}  // namespace

std::unique_ptr<FeatureSource> make_coordinate_features(int n_values) {
  return std::make_unique<CoordinateFeatures>(n_values);
}

}  // namespace trails::features
