// Helpers every spawner shares (spawner.h): the pool's CV points, state restore, target checks.
#include <algorithm>
#include <string>

#include "trails/core/error.h"
#include "trails/spawners/spawner.h"

namespace trails::spawners {

std::vector<double> pool_points(const features::FrameHistory& history, std::int64_t first) {
  const auto d = static_cast<std::size_t>(history.cv_dim());
  std::vector<double> pts;
  pts.reserve(static_cast<std::size_t>(history.frames() - first) * d);
  for (std::size_t blk = 0; blk < history.iterations(); ++blk) {
    const auto block_first = history.block_first(blk);
    if (block_first + history.block_frames(blk) <= first) continue;
    const auto from = static_cast<std::size_t>(std::max<std::int64_t>(0, first - block_first));
    const auto p = history.block_points(blk).subspan(from * d);
    pts.insert(pts.end(), p.begin(), p.end());
  }
  return pts;
}

void restore_versioned(const nlohmann::json& state, std::string_view what, int version,
                       const std::function<void(const nlohmann::json&)>& read) {
  try {
    if (state.at("version").get<int>() != version) {
      throw core::InputError(std::string(what) + " state has unsupported version " +
                             state.at("version").dump());
    }
    read(state);
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError("malformed " + std::string(what) + " state: " + e.what());
  }
}

void check_target_dimension(const std::vector<double>& target, int cv_dim) {
  if (static_cast<int>(target.size()) != cv_dim) {
    throw core::InputError("spawning.target has " + std::to_string(target.size()) +
                           " value(s) but the CV space has " + std::to_string(cv_dim) +
                           " dimension(s)");
  }
}

}  // namespace trails::spawners
