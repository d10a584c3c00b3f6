#include "trails/features/cv_projection.h"

#include <algorithm>
#include <cctype>
#include <numbers>
#include <string>

#include "trails/cvs/cv_set.h"
#include "trails/cvs/cv_spec.h"
#include "trails/structure/selection.h"
#include "trails/structure/structure_file.h"

namespace trails::features {
namespace {

// Molecular frames (nm, 3-D) → the rows of a CvSet, with the frame's box for minimum images.
class CvSetProjection final : public Projection {
 public:
  explicit CvSetProjection(cvs::CvSet set) : set_(std::move(set)) {}
  int dimension() const override { return set_.dimension(); }
  std::vector<std::string> column_names() const override { return set_.column_names(); }
  void project(std::span<const double> frames, std::int64_t n_frames, std::span<const double> boxes,
               std::vector<double>& out) const override {
    const auto per_frame = frame_boxes(boxes, n_frames);
    const std::size_t start = out.size();
    out.resize(start + static_cast<std::size_t>(n_frames * set_.dimension()));
    set_.compute(frames, static_cast<int>(n_frames), per_frame,
                 std::span<double>(out).subspan(start));
  }
  // Raw angles (radians) wrap at 2π; a column belongs to the spec whose name it is or starts
  // with ("name:suffix").
  std::vector<double> periods() const override {
    const auto names = set_.column_names();
    std::vector<double> out(names.size(), 0.0);
    for (const auto& spec : set_.specs()) {
      if (!cvs::kind_is_angular(spec.kind) || spec.encoding != cvs::AngleEncoding::Raw) continue;
      for (std::size_t c = 0; c < names.size(); ++c) {
        if (names[c] == spec.name || names[c].rfind(spec.name + ":", 0) == 0) {
          out[c] = 2.0 * std::numbers::pi;
        }
      }
    }
    return out;
  }

 private:
  cvs::CvSet set_;
};

bool is_structure_file(const std::filesystem::path& p) {
  auto ext = p.extension().string();
  for (auto& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext == ".pdb" || ext == ".ent" || ext == ".gro";
}

}  // namespace

std::vector<std::optional<structure::Box>> frame_boxes(std::span<const double> boxes,
                                                       std::int64_t n_frames) {
  std::vector<std::optional<structure::Box>> per_frame;
  if (boxes.empty()) return per_frame;
  per_frame.resize(static_cast<std::size_t>(n_frames));
  for (std::size_t f = 0; f < per_frame.size(); ++f) {
    structure::Box b;
    std::copy_n(boxes.begin() + static_cast<std::ptrdiff_t>(f * 9), 9, b.begin());
    per_frame[f] = b;
  }
  return per_frame;
}

std::unique_ptr<Projection> make_cv_projection(
    const nlohmann::json& cvs, const structure::Topology& topology,
    std::vector<double> reference_positions, const std::optional<std::filesystem::path>& conf_file,
    const std::filesystem::path& config_dir) {
  // The default reference (rmsd, fitted_coords, q): system.conf_file as written.
  if (conf_file && is_structure_file(*conf_file)) {
    auto conf = structure::read_structure(*conf_file);
    if (conf.topology.n_atoms() == topology.n_atoms()) reference_positions = conf.frames.front();
  }
  std::vector<cvs::CvSpec> specs;
  if (cvs.is_array()) {
    for (std::size_t i = 0; i < cvs.size(); ++i) {
      const std::string where = "cvs[" + std::to_string(i) + "]";
      auto spec = cvs::cv_spec_from_json(cvs[i], where);
      cvs::resolve_selections(spec, [&](const std::string& expr) {
        return structure::select_nonempty(topology, expr, where);
      });
      if (!spec.reference.empty() && spec.reference != "conf_file" &&
          spec.reference != "topology" && spec.reference_positions_nm.empty()) {
        std::filesystem::path ref(spec.reference);
        if (ref.is_relative()) ref = config_dir / ref;
        auto file = structure::read_structure(ref);
        spec.reference_positions_nm = file.frames.front();
      }
      specs.push_back(std::move(spec));
    }
  } else {
    specs = cvs::trails_md_fallback_cvs(
        structure::select_nonempty(topology, "protein", "the fallback CVs [Rg, RMSD] (no cvs:)"));
  }
  cvs::CvSet set(std::move(specs), topology, std::move(reference_positions));
  return std::make_unique<CvSetProjection>(std::move(set));
}

}  // namespace trails::features
