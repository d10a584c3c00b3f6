#include "trails/report/swarm/swarm_outputs.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/core/output_target.h"
#include "trails/core/temp_dir.h"
#include "trails/report/common/cv_axes.h"
#include "trails/report/common/cv_columns.h"
#include "trails/report/common/frame_trajectory.h"
#include "trails/report/common/gnuplot.h"
#include "trails/report/common/number_text.h"
#include "trails/report/common/potential_from_meta.h"
#include "trails/store/cycle_record.h"

namespace trails::report {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

double dt_of(const store::RunMeta& meta) {
  const auto& dt = meta.engine_system.value("dt", json(0.0));
  return dt.is_number() ? dt.get<double>() : 0.0;
}

std::string metrics_csv(const std::vector<store::CycleRecord>& chain, double dt) {
  std::string out;
  for (const auto& column : kSwarmMetricColumns) out += (out.empty() ? "" : ",") + column;
  out += "\n";
  for (const auto& row : swarm_metric_rows(chain, dt)) {
    std::string line;
    for (const auto& cell : row) line += (line.empty() ? "" : ",") + cell;
    out += line + "\n";
  }
  return out;
}

}  // namespace

const std::vector<std::string> kSwarmMetricColumns = {
    "cycle",    "anchor_metric", "chosen_trial", "selection_entropy", "tau2_metric", "outcome",
    "accepted", "converged",     "path_steps",   "path_time",         "wall_s",      "stop"};

std::vector<std::vector<std::string>> swarm_metric_rows(
    const std::vector<store::CycleRecord>& chain, double dt) {
  std::vector<std::vector<std::string>> rows;
  rows.reserve(chain.size());
  for (const auto& r : chain) {
    rows.push_back(
        {std::to_string(r.cycle), digits17_or_nan(r.anchor_metric), std::to_string(r.chosen),
         digits17_or_nan(r.entropy), digits17_or_nan(r.tau2_metric), store::to_string(r.outcome),
         r.outcome == store::CycleOutcome::KeptAnchor ? "0" : "1", r.converged ? "1" : "0",
         std::to_string(r.path_steps), digits17_or_nan(static_cast<double>(r.path_steps) * dt),
         digits17_or_nan(r.wall_s), r.stop});
  }
  return rows;
}

double swarm_dt(const store::RunMeta& meta) { return dt_of(meta); }

std::int64_t cycle_tick_step(std::int64_t last) {
  for (std::int64_t scale = 1;; scale *= 10) {
    for (const std::int64_t m : {1, 2, 5}) {
      if (last <= 8 * m * scale) return m * scale;
    }
  }
}

std::string swarm_progress_label(const store::RunMeta& meta, int d) {
  const json& pg = meta.config.at("pathgennie");
  const std::string mode = pg.at("mode").get<std::string>();
  std::string unit;  // the CVs' one unit, "" when they differ
  for (int i = 0; i < d; ++i) {
    const auto u = cv_axis(meta.config, meta.engine_system, i, d).unit;
    if (i == 0) unit = u;
    if (u != unit) unit.clear();
  }
  // Short enough for the picture's height: the metric, then its unit or what it means.
  const std::string in_unit = unit.empty() ? "" : unit + "; ";
  if (mode == "target" || mode == "fold") {
    return "progress  -|ξ - ξ*|  (" + in_unit + "0 at the target)";
  }
  if (mode == "unfold") {
    std::string w;
    for (const auto& x : pg.value("unfold_weights", json::array())) {
      w += (w.empty() ? "" : ", ") + fmt::format("{:g}", x.get<double>());
    }
    return "progress  |w ⊙ (ξ - ξ0)|  (w = unfold_weights [" + w + "])";
  }
  if (pg.value("escape_metric", std::string()) == "cv0") {
    return "progress  = " + cv_axis_label(meta.config, meta.engine_system, 0, d);
  }
  return "progress  |ξ - ξ0|  (" + in_unit + "distance from the start)";
}

// The cycles whose anchor is a frame of the reactive path: every save_freq-th and the last.
std::vector<const store::CycleRecord*> saved_cycles(const std::vector<store::CycleRecord>& chain,
                                                    int save_freq) {
  std::vector<const store::CycleRecord*> out;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const bool last = i + 1 == chain.size();
    if ((chain[i].cycle % save_freq == 0 || last) && chain[i].anchor) out.push_back(&chain[i]);
  }
  return out;
}

std::string path_csv(const std::vector<const store::CycleRecord*>& saved,
                     const std::vector<std::string>& names, double dt) {
  std::string out = "cycle,path_steps,path_time";
  for (const auto& n : names) out += "," + n;
  out += ",metric\n";
  for (const auto* r : saved) {
    out += fmt::format("{},{},{}", r->cycle, r->path_steps,
                       digits17_or_nan(static_cast<double>(r->path_steps) * dt));
    for (double x : r->anchor_cvs) out += "," + digits17_or_nan(x);
    out += "," + digits17_or_nan(r->anchor_metric) + "\n";
  }
  return out;
}

// One colour per chain, the same in every picture (Okabe–Ito, colour-blind safe).
std::string chain_colour(std::size_t k) {
  static const char* colours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                  "#E69F00", "#56B4E9", "#F0E442", "#000000"};
  return colours[k % 8];
}

void write_text(const fs::path& file, const std::string& text) {
  core::write_output(core::check_output("swarm output", file, core::ParentDir::MayBeCreated), text);
}

std::vector<std::vector<store::CycleRecord>> swarm_chains(const store::RunStore& store) {
  const int paths = store.meta().config.at("pathgennie").at("paths").get<int>();
  std::vector<std::vector<store::CycleRecord>> chains(static_cast<std::size_t>(paths));
  for (auto& r : load_cycle_records(store)) {
    chains.at(static_cast<std::size_t>(r.chain)).push_back(std::move(r));
  }
  return chains;
}

json swarm_status(const store::RunStore& store) {
  const json& pg = store.meta().effective_config.at("pathgennie");
  json chains = json::array();
  for (const auto& chain : swarm_chains(store)) {
    json c = {{"cycles", chain.size()}, {"converged", false}};
    if (!chain.empty()) {
      const auto& last = chain.back();
      c["converged"] = last.converged;
      if (!last.stop.empty()) c["stop"] = last.stop;
      c["anchor_metric"] = std::isfinite(last.anchor_metric) ? json(last.anchor_metric) : json();
      c["path_steps"] = last.path_steps;
    }
    chains.push_back(c);
  }
  return {{"mode", pg.at("mode")}, {"max_cycle", pg.at("max_cycle")}, {"chains", chains}};
}

std::string format_swarm_status(const json& swarm) {
  std::string out =
      fmt::format("swarm           {} mode, up to {} cycles per path\n",
                  swarm.at("mode").get<std::string>(), swarm.at("max_cycle").get<std::int64_t>());
  const auto& chains = swarm.at("chains");
  for (std::size_t k = 0; k < chains.size(); ++k) {
    const auto& c = chains[k];
    out += fmt::format("path {:<10} {} cycle(s), {}", k, c.at("cycles").get<std::int64_t>(),
                       c.at("converged").get<bool>() ? "converged"
                       : c.contains("stop")          ? c.at("stop").get<std::string>()
                                                     : "not converged");
    if (c.contains("anchor_metric") && c.at("anchor_metric").is_number()) {
      out += fmt::format(", progress {:.6g}", c.at("anchor_metric").get<double>());
    }
    out += "\n";
  }
  return out;
}

std::vector<fs::path> write_swarm_outputs(const fs::path& run_dir) {
  const auto store = store::RunStore::open(run_dir, store::RunStore::Mode::ReadOnly);
  const store::RunMeta& meta = store.meta();
  const double dt = dt_of(meta);
  const int save_freq = meta.config.at("pathgennie").at("save_freq").get<int>();
  const bool molecular = meta.engine_system.value("molecular", false);
  std::vector<fs::path> written;
  const auto chains = swarm_chains(store);
  for (std::size_t k = 0; k < chains.size(); ++k) {
    const fs::path dir = run_dir / fmt::format("path_{}", k);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw core::StoreError("cannot create " + dir.string() + ": " + ec.message());
    const auto& chain = chains[k];
    write_text(dir / "metrics.csv", metrics_csv(chain, dt));
    written.push_back(dir / "metrics.csv");
    const auto saved = saved_cycles(chain, save_freq);
    const std::size_t d = chain.empty() ? 0 : chain.front().anchor_cvs.size();
    write_text(dir / "reactive_path.csv",
               path_csv(saved, recorded_cv_names(meta, static_cast<int>(d)), dt));
    written.push_back(dir / "reactive_path.csv");
    if (!molecular || saved.empty()) continue;
    std::vector<core::FrameKey> keys;
    std::vector<FrameStamp> stamps;
    for (const auto* r : saved) {
      keys.push_back(*r->anchor);
      stamps.push_back(FrameStamp{r->path_steps, static_cast<double>(r->path_steps) * dt});
    }
    for (const char* name : {"reactive_path.xtc", "reactive_path.pdb"}) {
      core::PendingOutput out(core::check_output("swarm output", dir / name));
      write_frame_trajectory(store, run_dir, keys, stamps, out.temp_path());
      out.commit();
      written.push_back(dir / name);
    }
  }
  return written;
}

std::vector<fs::path> plot_swarm(const fs::path& run_dir, const fs::path& out_dir) {
  const auto store = store::RunStore::open(run_dir, store::RunStore::Mode::ReadOnly);
  const store::RunMeta& meta = store.meta();
  const auto chains = swarm_chains(store);
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  core::TempDir tmp("trails-swarm-plot");
  std::vector<fs::path> drawn;

  // progress.png: the anchor's progress after each cycle, one line per chain.
  std::string plots;
  for (std::size_t k = 0; k < chains.size(); ++k) {
    const fs::path data = tmp.path() / fmt::format("chain{}.dat", k);
    std::ofstream out(data);
    for (const auto& r : chains[k])
      out << r.cycle << ' ' << digits17_or_nan(r.anchor_metric) << '\n';
    close_checked(out, data);
    plots += fmt::format("{}'{}' using 1:2 with lines lw 2 lc rgb '{}' title 'path {}'",
                         plots.empty() ? "" : ", ", gp_quote(data.string()), chain_colour(k), k);
  }
  const int d = static_cast<int>(std::max<std::size_t>(
      chains.empty() || chains.front().empty() ? 1 : chains.front().front().anchor_cvs.size(), 1));
  const std::string ylabel = swarm_progress_label(meta, d);
  std::int64_t last_cycle = 1;
  for (const auto& chain : chains) {
    if (!chain.empty()) last_cycle = std::max(last_cycle, chain.back().cycle);
  }
  const fs::path progress_png = tmp.path() / "progress.png";
  // Cycles are whole numbers: integer ticks from 0, never 0.5.
  std::string script = fmt::format(
      "set terminal pngcairo size 900,600 font 'DejaVu Sans,11'\nset output '{}'\n"
      "set xlabel 'cycle'\nset ylabel '{}' noenhanced\nset key outside right top\nset grid\n"
      "set xrange [0:{}]\nset xtics 0,{}\nset format x '%.0f'\nplot {}\n",
      gp_quote(progress_png.string()), gp_quote(ylabel), last_cycle, cycle_tick_step(last_cycle),
      plots.empty() ? "NaN notitle" : plots);
  run_gnuplot(script, "the swarm's progress");
  std::vector<std::unique_ptr<core::PendingOutput>> staged;
  staged.push_back(stage_picture(
      progress_png, core::check_output("plot -o", out_dir / "progress.png"), "progress.png"));
  drawn.push_back(out_dir / "progress.png");

  // path.png: a 2-D built-in potential's contours with every chain's anchors.
  const auto potential = potential_from_meta(meta);
  if (potential && meta.engine_system.value("spatial_dim", 0) == 2) {
    const fs::path grid = tmp.path() / "potential.dat";
    const double vmin = write_potential_grid(*potential, grid);
    const double span = potential_span(meta);
    std::string paths;
    for (std::size_t k = 0; k < chains.size(); ++k) {
      const fs::path data = tmp.path() / fmt::format("path{}.dat", k);
      std::ofstream out(data);
      if (!chains[k].empty() && chains[k].front().start_cvs.size() == 2) {
        const auto& start = chains[k].front().start_cvs;
        out << digits17_or_nan(start[0]) << ' ' << digits17_or_nan(start[1]) << '\n';
      }
      for (const auto& r : chains[k]) {
        if (r.anchor_cvs.size() == 2)
          out << digits17_or_nan(r.anchor_cvs[0]) << ' ' << digits17_or_nan(r.anchor_cvs[1])
              << '\n';
      }
      close_checked(out, data);
      paths += fmt::format(
          ", '{}' using 1:2 with linespoints pt 7 ps 0.4 lw 1.5 lc rgb '{}' title 'path {}'",
          gp_quote(data.string()), chain_colour(k), k);
    }
    const fs::path path_png = tmp.path() / "path.png";
    script = fmt::format(
        "set terminal pngcairo size 800,700 font 'DejaVu Sans,11'\nset output '{}'\n"
        "set xlabel '{}' noenhanced\nset ylabel '{}' noenhanced\nset key outside right top\n"
        "set contour base\nset cntrparam levels incremental {},{},{}\nunset surface\n"
        "set view map\nset table '{}'\nsplot '{}' using 1:2:3 with lines notitle\nunset table\n"
        "unset contour\nplot '{}' using 1:2 with lines lc rgb '#999999' title 'potential'{}\n",
        gp_quote(path_png.string()), gp_quote(cv_axis_label(meta.config, meta.engine_system, 0, 2)),
        gp_quote(cv_axis_label(meta.config, meta.engine_system, 1, 2)), vmin, span / 12.0,
        vmin + span, gp_quote((tmp.path() / "contours.dat").string()), gp_quote(grid.string()),
        gp_quote((tmp.path() / "contours.dat").string()), paths);
    run_gnuplot(script, "the swarm's paths");
    staged.push_back(
        stage_picture(path_png, core::check_output("plot -o", out_dir / "path.png"), "path.png"));
    drawn.push_back(out_dir / "path.png");
  }
  for (auto& s : staged) s->commit();
  return drawn;
}

}  // namespace trails::report
