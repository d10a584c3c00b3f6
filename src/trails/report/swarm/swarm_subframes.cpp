#include "trails/report/swarm/swarm_subframes.h"

#include <cmath>
#include <system_error>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/output_target.h"
#include "trails/report/common/number_text.h"
#include "trails/store/run_store.h"
#include "trails/trajio/trajectory.h"

namespace trails::report {
namespace {

namespace fs = std::filesystem;

// The built-in engine's subframes: its coordinates are its CVs, named as in reactive_path.csv.
std::string subframes_csv(const swarm::SubframePath& p, const std::vector<std::string>& names,
                          double dt) {
  std::string out = "cycle,path_steps,path_time";
  for (const auto& n : names) out += "," + n;
  out += "\n";
  const auto per_frame =
      static_cast<std::size_t>(p.n_atoms) * static_cast<std::size_t>(p.spatial_dim);
  for (std::size_t f = 0; f < p.n_frames(); ++f) {
    out += fmt::format("{},{},{}", p.cycles[f], p.path_steps[f],
                       digits17_or_nan(static_cast<double>(p.path_steps[f]) * dt));
    for (std::size_t i = 0; i < per_frame; ++i)
      out += "," + digits17_or_nan(p.positions[f * per_frame + i]);
    out += "\n";
  }
  return out;
}

void write_xtc(const swarm::SubframePath& p, double dt, const fs::path& file) {
  auto writer = trajio::open_trajectory_writer(file, p.n_atoms);
  const auto per_frame = static_cast<std::size_t>(p.n_atoms) * 3;
  for (std::size_t f = 0; f < p.n_frames(); ++f) {
    trajio::TrajectoryFrame tf;
    const auto first = p.positions.begin() + static_cast<std::ptrdiff_t>(f * per_frame);
    tf.positions_nm.assign(first, first + static_cast<std::ptrdiff_t>(per_frame));
    if (!p.boxes.empty()) {
      structure::Box b{};
      std::copy_n(p.boxes.begin() + static_cast<std::ptrdiff_t>(f * 9), 9, b.begin());
      tf.box = b;
    }
    tf.step = p.path_steps[f];
    tf.time_ps = static_cast<double>(p.path_steps[f]) * dt;
    writer->write(tf);
  }
  writer->close();
}

}  // namespace

std::vector<fs::path> write_swarm_subframes(const fs::path& run_dir,
                                            const std::vector<swarm::SubframePath>& paths) {
  const auto store = store::RunStore::open(run_dir, store::RunStore::Mode::ReadOnly);
  const store::RunMeta& meta = store.meta();
  const double dt = meta.engine_system.value("dt", 0.0);
  const bool molecular = meta.engine_system.value("molecular", false);
  std::vector<fs::path> written;
  for (std::size_t k = 0; k < paths.size(); ++k) {
    const fs::path dir = run_dir / fmt::format("path_{}", k);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw core::StoreError("cannot create " + dir.string() + ": " + ec.message());
    const swarm::SubframePath& p = paths[k];
    const fs::path file = dir / (molecular ? "reactive_path_subframes.xtc" : "subframes.csv");
    if (molecular) {
      core::PendingOutput out(core::check_output("swarm output", file));
      write_xtc(p, dt, out.temp_path());
      out.commit();
    } else {
      std::vector<std::string> names;
      if (meta.engine_system.contains("cv_names")) {
        names = meta.engine_system.at("cv_names").get<std::vector<std::string>>();
      }
      const auto d = static_cast<std::size_t>(p.n_atoms) * static_cast<std::size_t>(p.spatial_dim);
      for (std::size_t i = names.size(); i < d; ++i) names.push_back(fmt::format("x{}", i));
      core::write_output(core::check_output("swarm output", file), subframes_csv(p, names, dt));
    }
    written.push_back(file);
  }
  return written;
}

}  // namespace trails::report
