#include "trails/report/export/trails_md_layout.h"

#include <unistd.h>

#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/npy.h"
#include "trails/report/common/frame_trajectory.h"
#include "trails/report/export/export_segments.h"
#include "trails/store/run_store.h"
#include "trails/store/shard_observables.h"

namespace trails::report {
namespace fs = std::filesystem;

namespace {

bool inside(const fs::path& path, const fs::path& dir) {
  const auto p = fs::weakly_canonical(fs::absolute(path));
  const auto d = fs::weakly_canonical(fs::absolute(dir));
  auto rel = p.lexically_relative(d);
  return !rel.empty() && *rel.begin() != "..";
}

// Removes the half-built layout unless it was published.
struct Scratch {
  fs::path dir;
  bool published = false;
  ~Scratch() {
    std::error_code ec;
    if (!published) fs::remove_all(dir, ec);
  }
};

}  // namespace

TrailsMdLayout export_trails_md_layout(const fs::path& run_dir, const fs::path& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec))) {
    throw core::UsageError("--trails-md-layout " + dir.string() +
                           ": exists and is not an empty directory; name a new one");
  }
  if (inside(dir, run_dir)) {
    throw core::UsageError("--trails-md-layout " + dir.string() + ": lies inside the run " +
                           run_dir.string() +
                           ", which Trails never writes into; name a "
                           "directory outside it");
  }
  const auto store = store::RunStore::open(run_dir, store::RunStore::Mode::ReadOnly);
  const bool molecular = store.meta().engine_system.value("molecular", false);
  const auto records = store.load_iterations();
  const fs::path target = fs::absolute(dir).lexically_normal();
  Scratch scratch{target.parent_path() /
                  fmt::format(".{}.tmp-{}", target.filename().string(), ::getpid())};
  fs::remove_all(scratch.dir);
  fs::create_directories(scratch.dir);
  TrailsMdLayout out;
  for (const auto& record : records) {
    const std::int64_t n = record.iteration;
    const fs::path iter_dir = scratch.dir / fmt::format("iter_{}", n);
    fs::create_directories(iter_dir);
    const auto segments = select_segments(records, {n, std::nullopt}, run_dir);
    if (molecular) {
      for (const auto& s : segments) {
        std::vector<core::FrameKey> keys;
        std::vector<FrameStamp> stamps;
        for (std::int64_t f = 0; f < s.walker->n_frames; ++f) {
          keys.push_back({n, s.walker->walker, f});
          stamps.push_back({s.step(f), s.time(f)});
        }
        if (keys.empty()) continue;
        write_frame_trajectory(store, run_dir, keys, stamps,
                               iter_dir / fmt::format("iteration_{}_{}.xtc", n, s.walker->walker));
        ++out.trajectories;
      }
    }
    // Trails-MD's cvs.npz: the ok walkers' frames, walker-major, as the record holds them.
    const std::int64_t rows = record.n_frames();
    core::write_npz(iter_dir / "cvs.npz",
                    {{"cvs", record.cvs, {rows, static_cast<std::int64_t>(record.cv_dim)}}});
    // features.npz (key `features`) where the run stored its feature rows (save_features: true):
    // the same rows as cvs.npz, as Trails-MD writes them (docs/trails-md-compatibility.md).
    if (const auto features = store::load_observable(store, n, "features")) {
      core::write_npz(iter_dir / "features.npz",
                      {{"features", features->values, {rows, features->n_columns}}});
      ++out.feature_files;
    }
    out.frames += rows;
    ++out.iterations;
  }
  if (fs::exists(run_dir / "output.log")) {
    fs::copy_file(run_dir / "output.log", scratch.dir / "output.log");
  }
  if (fs::exists(target)) fs::remove(target);  // the empty directory checked above
  fs::rename(scratch.dir, target);
  scratch.published = true;
  return out;
}

}  // namespace trails::report
