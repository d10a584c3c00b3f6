#include "trails/campaign/projection_factory.h"

#include <optional>

#include <fmt/format.h>

#include "trails/campaign/project_file_projection.h"
#include "trails/core/error.h"
#include "trails/cvs/cv_set.h"
#include "trails/cvs/cv_spec.h"
#include "trails/structure/selection.h"
#include "trails/structure/structure_file.h"

namespace trails::campaign {
namespace {

// Molecular frames (nm, 3-D) → the rows of a CvSet, with the frame's box for minimum images.
class CvSetProjection final : public features::Projection {
 public:
  explicit CvSetProjection(cvs::CvSet set) : set_(std::move(set)) {}
  int dimension() const override { return set_.dimension(); }
  std::vector<std::string> column_names() const override { return set_.column_names(); }
  void project(std::span<const double> frames, std::int64_t n_frames, std::span<const double> boxes,
               std::vector<double>& out) const override {
    std::vector<std::optional<structure::Box>> per_frame;
    if (!boxes.empty()) {
      per_frame.resize(static_cast<std::size_t>(n_frames));
      for (std::size_t f = 0; f < per_frame.size(); ++f) {
        structure::Box b;
        std::copy_n(boxes.begin() + static_cast<std::ptrdiff_t>(f * 9), 9, b.begin());
        per_frame[f] = b;
      }
    }
    const std::size_t start = out.size();
    out.resize(start + static_cast<std::size_t>(n_frames * set_.dimension()));
    set_.compute(frames, static_cast<int>(n_frames), per_frame,
                 std::span<double>(out).subspan(start));
  }

 private:
  cvs::CvSet set_;
};

bool is_structure_file(const std::filesystem::path& p) {
  auto ext = p.extension().string();
  for (auto& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext == ".pdb" || ext == ".ent" || ext == ".gro";
}

std::unique_ptr<features::Projection> molecular_projection(const config::CampaignConfig& config,
                                                           const engines::EngineSystem& system) {
  if (config.system.project_file) {  // Trails-MD's extract_cvs (cross-checked: no cvs: block)
    return make_project_file_projection(config, system.reference_positions, system.box);
  }
  if (!system.topology) {
    throw core::ConfigError("cvs: the prepared system in " + system.prepared_dir.string() +
                            " has no topology.pdb, so CV selections cannot be resolved");
  }
  const structure::Topology& topology = *system.topology;
  // The default reference (rmsd, fitted_coords, q): system.conf_file as written.
  std::vector<double> reference = system.reference_positions;
  if (config.system.conf_file && is_structure_file(*config.system.conf_file)) {
    auto conf = structure::read_structure(*config.system.conf_file);
    if (conf.topology.n_atoms() == topology.n_atoms()) reference = conf.frames.front();
  }
  std::vector<cvs::CvSpec> specs;
  if (config.cvs.is_array()) {
    for (std::size_t i = 0; i < config.cvs.size(); ++i) {
      const std::string where = "cvs[" + std::to_string(i) + "]";
      auto spec = cvs::cv_spec_from_json(config.cvs[i], where);
      cvs::resolve_selections(spec, [&](const std::string& expr) {
        return structure::select_nonempty(topology, expr, where);
      });
      if (!spec.reference.empty() && spec.reference != "conf_file" &&
          spec.reference != "topology" && spec.reference_positions_nm.empty()) {
        std::filesystem::path ref(spec.reference);
        if (ref.is_relative()) ref = config.config_file.parent_path() / ref;
        auto file = structure::read_structure(ref);
        spec.reference_positions_nm = file.frames.front();
      }
      specs.push_back(std::move(spec));
    }
  } else {
    specs = cvs::trails_md_fallback_cvs(
        structure::select_nonempty(topology, "protein", "the fallback CVs [Rg, RMSD] (no cvs:)"));
  }
  cvs::CvSet set(std::move(specs), topology, reference);
  // A learned space bins its own len(n_bins) dimensions; these CVs are then evaluation only.
  if (!config.learned_space() && set.dimension() != config.cv_dimension()) {
    std::string names;
    for (const auto& n : set.column_names()) names += (names.empty() ? "" : ", ") + n;
    throw core::ConfigError(fmt::format(
        "{}: n_bins has {} entries but the CVs give {} columns ({}); give n_bins, min_values and "
        "max_values one entry per CV column",
        config.config_file.string(), config.cv_dimension(), set.dimension(), names));
  }
  return std::make_unique<CvSetProjection>(std::move(set));
}

}  // namespace

std::unique_ptr<features::Projection> make_projection(const config::CampaignConfig& config,
                                                      const engines::Engine& engine) {
  // A non-molecular engine's particle is a point of the CV space: its coordinates are the CVs.
  if (!engine.system().molecular) {
    return features::make_identity_projection(engine.n_atoms() * engine.spatial_dim());
  }
  return molecular_projection(config, engine.system());
}

}  // namespace trails::campaign
