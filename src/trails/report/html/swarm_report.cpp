// `trails report` of a swarm run (swarm_report.h): the settings, each path's outcome, the
// pictures of `trails plot` and every cycle's row of metrics.csv, from the run store alone.
#include "trails/report/html/swarm_report.h"

#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "trails/core/temp_dir.h"
#include "trails/report/html/html_page.h"
#include "trails/report/html/run_report_sections.h"
#include "trails/report/swarm/swarm_outputs.h"

namespace trails::report {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// Rows of one path's cycle table shown on the page; the rest are in path_K/metrics.csv.
constexpr std::size_t kMaxCycleRows = 2000;

std::string json_text(const json& j) { return j.is_string() ? j.get<std::string>() : j.dump(); }

// What a metric column holds, for the table's header.
const char* column_meaning(const std::string& column) {
  if (column == "anchor_metric") return "progress of the new anchor";
  if (column == "tau2_metric") return "progress after τ2";
  if (column == "path_time") return "time along the path";
  if (column == "wall_s") return "wall time (s)";
  return "";
}

std::string outcome_of(const std::vector<store::CycleRecord>& chain, std::int64_t max_cycle,
                       bool running) {
  if (chain.empty()) return "no cycle committed";
  const auto& last = chain.back();
  if (last.converged) return fmt::format("converged at cycle {}", last.cycle);
  if (!last.stop.empty()) return fmt::format("{} at cycle {}", last.stop, last.cycle);
  if (last.cycle + 1 >= max_cycle) return fmt::format("reached max_cycle ({})", max_cycle);
  return running ? "running" : "stopped before max_cycle (resume with trails swarm --resume)";
}

std::string settings_rows(const json& pg, const json& status, const json& config) {
  std::vector<std::pair<std::string, std::string>> rows = {
      {"run directory", json_text(status["run_dir"])},
      {"state", status.value("running", false)
                    ? "running: the page shows the cycles committed when it was made"
                    : "not running"},
      {"written by", "trails " + json_text(status["trails_version"]) + ", store schema " +
                         json_text(status["schema_version"]) + ", created " +
                         json_text(status["created_at"])},
      {"configuration digest", json_text(status["config_digest"])},
      {"engine", detail::engine_description(status, config)},
      {"mode", json_text(pg.value("mode", json()))},
      {"paths", json_text(pg.value("paths", json()))},
      {"cycle", fmt::format("{} trials of τ1 = {} steps, the chosen one extended by τ2 = {} steps; "
                            "softmax σ {}",
                            json_text(pg.value("max_trial", json())),
                            json_text(pg.value("tau1_steps", json())),
                            json_text(pg.value("tau2_steps", json())),
                            json_text(pg.value("sigma", json())))},
      {"cycles per path", "at most " + json_text(pg.value("max_cycle", json()))}};
  return html::key_values(rows);
}

std::string outcome_table(const std::vector<std::vector<store::CycleRecord>>& chains,
                          const store::RunMeta& meta, bool running) {
  const double dt = swarm_dt(meta);
  std::string time_unit = meta.engine_system.value("time_unit", std::string("reduced"));
  if (time_unit == "reduced") time_unit = "reduced time units";
  const auto max_cycle = meta.effective_config.at("pathgennie").value("max_cycle", std::int64_t{0});
  std::vector<std::vector<std::string>> rows;
  for (std::size_t k = 0; k < chains.size(); ++k) {
    const auto& chain = chains[k];
    double wall = 0.0;
    for (const auto& r : chain) wall += r.wall_s;
    const auto* last = chain.empty() ? nullptr : &chain.back();
    rows.push_back(
        {std::to_string(k), std::to_string(chain.size()), outcome_of(chain, max_cycle, running),
         last && std::isfinite(last->anchor_metric) ? fmt::format("{:.6g}", last->anchor_metric)
                                                    : "n/a",
         last ? std::to_string(last->path_steps) : "0",
         last ? fmt::format("{:.6g} {}", static_cast<double>(last->path_steps) * dt, time_unit)
              : "0",
         fmt::format("{:.2f}", wall)});
  }
  return html::table(
      {"path", "cycles", "outcome", "final progress", "path steps", "path time", "wall time (s)"},
      rows);
}

std::string cycle_tables(const std::vector<std::vector<store::CycleRecord>>& chains,
                         const store::RunMeta& meta) {
  std::vector<std::string> header;
  for (const auto& c : kSwarmMetricColumns) {
    const std::string meaning = column_meaning(c);
    header.push_back(meaning.empty() ? c : c + " (" + meaning + ")");
  }
  std::string body;
  for (std::size_t k = 0; k < chains.size(); ++k) {
    auto rows = swarm_metric_rows(chains[k], swarm_dt(meta));
    std::string note;
    if (rows.size() > kMaxCycleRows) {
      note = html::paragraph(fmt::format("The first {} of {} cycles; every one is in path_{}/"
                                         "metrics.csv (trails swarm writes it).",
                                         kMaxCycleRows, rows.size(), k),
                             "note");
      rows.resize(kMaxCycleRows);
    }
    body += html::details(fmt::format("path {}: {} cycles", k, chains[k].size()),
                          note + html::table(header, rows), chains.size() == 1);
  }
  return body;
}

struct SwarmPicture {
  const char* name;
  const char* title;
  const char* caption;
};
constexpr SwarmPicture kSwarmPictures[] = {
    {"progress.png", "Progress along each path",
     "The progress metric of each path's anchor after every cycle (the y axis names the "
     "metric of the run's mode and its units). A path that climbs and levels off has reached "
     "its goal or stalled; the outcome table says which."},
    {"path.png", "Paths over the potential",
     "Every path's anchors, from its start, over the built-in potential's contours (grey), on "
     "the run's two CVs."},
};

std::string pictures(const fs::path& run_dir, std::vector<std::string>& embedded) {
  const core::TempDir scratch("trails-report");
  const auto drawn = plot_swarm(run_dir, scratch.path() / "plots");
  std::string body;
  for (const auto& p : kSwarmPictures) {
    for (const auto& file : drawn) {
      if (file.filename() != p.name) continue;
      body += html::figure(detail::read_file_bytes(file), p.name,
                           std::string(p.title) + " (trails plot: " + p.name + ").", p.caption);
      embedded.push_back(std::string("trails plot: ") + p.name);
    }
  }
  return body.empty() ? html::paragraph("No pictures were drawn.", "note") : body;
}

}  // namespace

std::string swarm_report_body(const fs::path& run_dir, const store::RunStore& store,
                              const json& status, const std::string& generated_at,
                              std::vector<std::string>& embedded) {
  const auto& meta = store.meta();
  const json& pg = meta.effective_config.at("pathgennie");
  const auto chains = swarm_chains(store);
  const bool running = status.value("running", false);
  std::string nav = "<nav>";
  for (const auto& [id, title] :
       std::vector<std::pair<std::string, std::string>>{{"summary", "Summary"},
                                                        {"outcome", "Outcome"},
                                                        {"pictures", "Pictures"},
                                                        {"cycles", "Cycles"}}) {
    nav += fmt::format("<a href=\"#{}\">{}</a>", id, html::escape(title));
  }
  nav += "</nav>\n";
  std::string summary = settings_rows(pg, status, meta.config);
  summary += html::details("Result-relevant configuration", html::pre(meta.config.dump(2)));
  summary += html::paragraph("Page made " + generated_at + " by trails report.", "note");
  return nav + html::section("summary", "Swarm run summary", summary) +
         html::section("outcome", "Outcome of each path", outcome_table(chains, meta, running)) +
         html::section("pictures", "Pictures", pictures(run_dir, embedded)) +
         html::section("cycles", "Cycles (metrics.csv)", cycle_tables(chains, meta));
}

}  // namespace trails::report
