#include "trails/report/analyze/plot_fes.h"

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/report/analyze/reweight.h"
#include "trails/report/common/msm_builds.h"
#include "trails/report/common/potential_from_meta.h"

namespace trails::report {
namespace fs = std::filesystem;

namespace {

FreeEnergyPicture base_picture(const store::RunStore& store, const CommittedFrames& frames,
                               const EnergyScale& scale,
                               const engines::builtin::Potential* potential) {
  FreeEnergyPicture p;
  p.points = frames.points;
  p.point_dim = frames.d;
  p.scale = scale;
  p.axes = cv_axes(store.meta(), frames.d);
  p.potential = potential;
  p.potential_span = potential_span(store.meta());
  return p;
}

}  // namespace

std::vector<double> ensemble_frame_weights(const store::RunMeta& meta,
                                           const CommittedFrames& frames) {
  const auto spawning = meta.config.value("spawning", nlohmann::json::object());
  const bool we = spawning.is_object() && spawning.value("spawn_scheme", std::string()) == "we";
  return we ? frames.walker_weights : std::vector<double>{};
}

std::vector<NamedFreeEnergy> run_free_energy_pictures(
    const store::RunStore& store, const fs::path& run_dir, const std::optional<fs::path>& weights,
    std::optional<double> temperature_k, const engines::builtin::Potential* potential) {
  const EnergyScale scale = energy_scale(store.meta(), temperature_k);
  std::vector<NamedFreeEnergy> out;
  if (weights) {
    const auto header = read_weights_header(*weights, store.meta());
    const CommittedFrames frames = load_run_frames(store, run_dir, header.last_iteration);
    if (frames.last_iteration != header.last_iteration) {
      throw core::InputError(fmt::format(
          "--weights {}: the weights cover iterations 0..{}, but {} has only 0..{} committed",
          weights->string(), header.last_iteration, run_dir.string(), frames.last_iteration));
    }
    if (frames.size() == 0) throw core::InputError(run_dir.string() + " has no frames");
    auto p = base_picture(store, frames, scale, potential);
    p.weights = read_frame_weights(*weights, frames);
    p.source = fmt::format("RiteWeight weights of {} frames, iterations 0..{}", frames.size(),
                           frames.last_iteration);
    out.push_back({"fes.png", std::move(p)});
  } else {
    const CommittedFrames frames = load_run_frames(store, run_dir);
    if (frames.size() == 0) throw core::InputError(run_dir.string() + " has no frames");
    auto p = base_picture(store, frames, scale, potential);
    p.weights = ensemble_frame_weights(store.meta(), frames);
    p.source = fmt::format("{} of {} frames, iterations 0..{}",
                           p.weights.empty() ? "histogram" : "weighted-ensemble weights",
                           frames.size(), frames.last_iteration);
    out.push_back({"fes.png", std::move(p)});
  }
  // The latest build with a model and its centres: pi_i spread over the frames nearest to i.
  const auto builds = checked_msm_builds(store);
  for (auto b = builds.rbegin(); b != builds.rend(); ++b) {
    const auto& m = b->record;
    if (!m.note.empty() || m.n_active < 2 || !m.cluster_centers) continue;
    const CommittedFrames frames = load_run_frames(store, run_dir, b->iteration);
    if (frames.size() == 0 ||
        m.cluster_centers->size() !=
            static_cast<std::size_t>(m.n_microstates) * static_cast<std::size_t>(frames.d)) {
      break;
    }
    auto p = base_picture(store, frames, scale, potential);
    p.weights = analysis::microstate_frame_weights(frames.points, frames.d, *m.cluster_centers,
                                                   m.active_set, m.stationary_distribution);
    p.source = fmt::format("MSM pi of the build at iteration {}, {} microstates", b->iteration,
                           m.n_microstates);
    out.push_back({"fes_msm.png", std::move(p)});
    break;
  }
  return out;
}

}  // namespace trails::report
