#include "trails/features/molecular_features.h"

#include "trails/core/error.h"
#include "trails/features/cv_projection.h"

namespace trails::features {

void MolecularFeatures::add(const std::string& type, cvs::CvSet set) {
  types_.push_back(type);
  sets_.emplace(type, std::move(set));
}

int MolecularFeatures::n_features(const std::string& type) const { return set(type).dimension(); }

std::vector<double> MolecularFeatures::compute(const std::string& type,
                                               std::span<const double> frames,
                                               std::int64_t n_frames,
                                               std::span<const double> boxes) const {
  const cvs::CvSet& s = set(type);
  const auto per_frame = frame_boxes(boxes, n_frames);
  std::vector<double> out(static_cast<std::size_t>(n_frames) *
                          static_cast<std::size_t>(s.dimension()));
  s.compute(frames, static_cast<int>(n_frames), per_frame, out);
  return out;
}

const cvs::CvSet& MolecularFeatures::set(const std::string& type) const {
  const auto it = sets_.find(type);
  if (it == sets_.end()) throw core::InputError("no feature type " + type + " in this campaign");
  return it->second;
}

}  // namespace trails::features
