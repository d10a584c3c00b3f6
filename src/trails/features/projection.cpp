#include "trails/features/projection.h"

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::features {
namespace {

class IdentityProjection final : public Projection {
 public:
  explicit IdentityProjection(int n_values) : n_values_(n_values) {}
  int dimension() const override { return n_values_; }
  std::vector<std::string> column_names() const override {
    std::vector<std::string> names;
    for (int i = 0; i < n_values_; ++i) names.push_back(fmt::format("x{}", i));
    return names;
  }
  void project(std::span<const double> frames, std::int64_t n_frames, std::span<const double>,
               std::vector<double>& out) const override {
    TRAILS_CHECK(frames.size() == static_cast<std::size_t>(n_frames * n_values_),
                 "identity projection: frame size mismatch");
    out.insert(out.end(), frames.begin(), frames.end());
  }
  bool is_identity() const override { return true; }

 private:
  int n_values_;
};

}  // namespace

std::unique_ptr<Projection> make_identity_projection(int n_values) {
  return std::make_unique<IdentityProjection>(n_values);
}

}  // namespace trails::features
