// The walkers' results in an iteration: the failure policy (min_success_fraction), a walker with
// a non-finite CV failed alone, and the time step recorded with the iteration. Their tasks and
// start configurations are the start-states element's (start_states_element.h).
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "trails/campaign/campaign_driver.h"
#include "trails/core/error.h"
#include "trails/engines/device_error.h"

namespace trails::campaign {

void CampaignDriver::check_failures(std::int64_t iteration,
                                    const std::vector<engines::SegmentResult>& results) const {
  const auto n = static_cast<std::int64_t>(results.size());
  const auto ok = std::count_if(results.begin(), results.end(), [](auto& r) { return r.ok(); });
  if (ok == n) return;
  std::string detail;
  int shown = 0;
  for (const auto& r : results) {
    if (r.ok()) continue;
    if (shown++ < 5) detail += "\n  walker " + std::to_string(r.task_id) + ": " + r.error;
  }
  if (ok == 0 || static_cast<double>(ok) < config_.min_success_fraction * static_cast<double>(n)) {
    std::string msg = fmt::format(
        "iteration {}: only {} of {} walkers succeeded (min_success_fraction {}); the iteration "
        "was not committed{}",
        iteration, ok, n, config_.min_success_fraction, detail);
    const bool device = std::all_of(results.begin(), results.end(), [](const auto& r) {
      return r.ok() || engines::is_device_resource_error(r.error);
    });
    if (device) {
      msg +=
          "\nevery failed walker ran out of its device's memory or resources: put fewer walkers "
          "on each device (execution.workers_per_device)";
    } else if (iteration == 0 && ok == 0) {
      msg +=
          "\nevery walker failed in the first iteration: check system.start and reduce engine.dt";
    }
    throw core::EngineError(msg);
  }
  spdlog::warn("iteration {}: {} of {} walkers failed; continuing with the survivors{}", iteration,
               n - ok, n, detail);
}

void CampaignDriver::fail_non_finite_cvs(IterationState& it) {
  auto& rec = it.rec;
  std::int64_t n_frames = 0;
  for (const auto& s : it.spans) n_frames += s.n_frames;
  if (n_frames == 0) return;
  const auto dim = rec.cvs.size() / static_cast<std::size_t>(n_frames);
  const auto atom_values =
      static_cast<std::size_t>(rec.n_atoms) * static_cast<std::size_t>(rec.spatial_dim);
  // The first non-finite CV of each walker, by its span.
  std::map<std::int64_t, std::string> bad;
  std::size_t row = 0;  // the span's first frame
  for (const auto& s : it.spans) {
    for (std::int64_t f = 0; f < s.n_frames && !bad.contains(s.walker); ++f) {
      for (std::size_t c = 0; c < dim; ++c) {
        const double v = rec.cvs[(row + static_cast<std::size_t>(f)) * dim + c];
        if (std::isfinite(v)) continue;
        bad[s.walker] = fmt::format(
            "walker {} of iteration {}: collective variable {} of frame {} is {}; the walker's "
            "frames are not kept (check the CV definition or the frames the engine wrote)",
            s.walker, it.iteration, c, f, v);
        break;
      }
    }
    row += static_cast<std::size_t>(s.n_frames);
  }
  if (bad.empty()) return;
  // Keep the other walkers' rows, in walker order.
  std::vector<double> positions, boxes, cvs;
  std::vector<features::FrameHistory::WalkerSpan> spans;
  std::size_t first = 0;
  for (const auto& s : it.spans) {
    const auto n = static_cast<std::size_t>(s.n_frames);
    if (!bad.contains(s.walker)) {
      const auto take = [&](const std::vector<double>& from, std::vector<double>& to,
                            std::size_t width) {
        if (from.empty()) return;
        to.insert(to.end(), from.begin() + static_cast<std::ptrdiff_t>(first * width),
                  from.begin() + static_cast<std::ptrdiff_t>((first + n) * width));
      };
      take(rec.positions, positions, atom_values);
      take(rec.boxes, boxes, 9);
      take(rec.cvs, cvs, dim);
      spans.push_back(s);
    }
    first += n;
  }
  rec.positions = std::move(positions);
  rec.boxes = std::move(boxes);
  rec.cvs = std::move(cvs);
  it.spans = std::move(spans);
  std::erase_if(rec.final_states, [&](const auto& f) { return bad.contains(f.walker); });
  for (const auto& [walker, why] : bad) {
    auto& w = rec.walkers[static_cast<std::size_t>(walker)];
    w.ok = false;
    w.error = why;
    w.n_frames = 0;
    auto& r = it.results[static_cast<std::size_t>(walker)];
    r.status = engines::SegmentStatus::Failed;
    r.error = why;
  }
  check_failures(it.iteration, it.results);
  // The pending shard already holds these walkers' positions: write it again without them.
  it.shard.reset();
  it.shard.emplace(store_->begin_shard(it.iteration, it.shard_layout));
  first = 0;
  for (const auto& s : it.spans) {
    const auto n = static_cast<std::size_t>(s.n_frames) * atom_values;
    it.shard->append(std::span<const double>(rec.positions).subspan(first, n));
    first += n;
  }
}

double CampaignDriver::record_dt() const {
  // engine.dt in the engine's own unit (EngineSystem::time_unit).
  return engine_->system().dt;
}

}  // namespace trails::campaign
