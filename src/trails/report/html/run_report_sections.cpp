// The text sections of `trails report` (run_report_sections.h): summary, MSM builds, analysis,
// convergence and failures, each from ReportInputs only.
#include <cmath>
#include <fstream>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "trails/core/error.h"
#include "trails/report/html/html_page.h"
#include "trails/report/html/run_report_sections.h"

namespace trails::report::detail {
namespace {
using json = nlohmann::json;
using Rows = std::vector<std::pair<std::string, std::string>>;

// Failed walkers whose logs the page shows in full (the table lists every one), and up to how
// many failures the logs are unfolded.
constexpr std::size_t kMaxLogs = 200;
constexpr std::size_t kMaxOpenLogs = 10;
// Bytes of a written table shown on the page.
constexpr std::size_t kMaxTableBytes = 256 * 1024;

std::string value_text(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_null()) return "n/a";
  return j.dump();
}

std::string short_number(double v, const char* spec = "{:.4g}") {
  return std::isfinite(v) ? fmt::format(fmt::runtime(spec), v) : std::string("inf");
}

// "1.2, 3.4, inf" of the first `n` values.
std::string short_numbers(const std::vector<double>& v, std::size_t n = 3) {
  std::string out;
  for (std::size_t i = 0; i < v.size() && i < n; ++i) out += (i ? ", " : "") + short_number(v[i]);
  if (v.size() > n) out += ", ...";
  return out.empty() ? "none" : out;
}

std::string yes_no(bool b) { return b ? "yes" : "no"; }

bool msm_enabled(const json& config) {
  const auto it = config.find("msm");
  return it != config.end() && it->is_object() && it->value("enabled", false);
}

// A configured number as a person writes it ("15", "0.0001", "300"); anything else as value_text().
std::string quantity(const json& j) {
  return j.is_number() ? fmt::format("{:g}", j.get<double>()) : value_text(j);
}

std::string string_at(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// "conf_file /x/a.pdb, top_file /x/a.prmtop": the system's input files that the run names.
std::string input_files(const json& system) {
  std::string out;
  for (const char* key : {"conf_file", "top_file", "system_file"}) {
    const auto file = string_at(system, key);
    if (!file.empty()) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", key, file);
  }
  const auto ff = system.value("forcefield", json::array());
  if (ff.is_array() && !ff.empty()) {
    std::string names;
    for (const auto& f : ff) names += (names.empty() ? "" : " + ") + value_text(f);
    out += (out.empty() ? "" : ", ") + std::string("force field ") + names;
  }
  return out;
}

// The platforms the last iteration's walkers ran on ("CPU", "CUDA, OpenCL").
std::string platforms_used(const json& s) {
  std::set<std::string> names;
  for (const auto& p : s.value("placement", json::array())) {
    if (p.contains("where")) names.insert(value_text(p["where"].value("platform", json())));
  }
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// What the engine integrates, from the run's configuration: the built-in potential or the
// molecular system's inputs and the engine's own settings (each engine kind names its own).
std::string engine_setup(const std::string& kind, const json& config, const json& s) {
  const auto engine = config.value("engine", json::object());
  const auto system = config.value("system", json::object());
  if (kind == "builtin") {
    return fmt::format("potential {}, {} dynamics at kT {} (reduced units)",
                       value_text(engine.value("potential", json())),
                       value_text(engine.value("integrator", json())),
                       quantity(engine.value("kT", json())));
  }
  std::string out;
  const auto files = input_files(system);
  if (kind == "openmm") {
    out = files.empty() ? "system from the default inputs" : files;
    out += fmt::format("; platform {} requested ({} precision)",
                       value_text(engine.value("platform_name", json())),
                       value_text(engine.value("precision", json())));
    const auto used = platforms_used(s);
    if (!used.empty()) out += ", ran on " + used;
  } else if (kind == "gromacs") {
    out = fmt::format(
        "{}; {}", files.empty() ? "no input files recorded" : files,
        string_at(system, "system_file").empty() ? "Trails' MDP" : "the system_file MDP template");
    out += "; program " + value_text(engine.value("gromacs_executable", json()));
  } else if (kind == "amber") {
    out = files.empty() ? "no input files recorded" : files;
    const auto mdin = string_at(engine, "amber_input_file");
    out += "; " + (mdin.empty() ? std::string("Trails' mdin") : "mdin template " + mdin);
    out += "; program " + value_text(engine.value("amber_executable", json()));
  } else if (kind == "command") {
    std::string argv;
    for (const auto& a : engine.value("command", json::array())) {
      argv += (argv.empty() ? "" : " ") + value_text(a);
    }
    out = "program '" + argv + "'";
    if (!files.empty()) out += "; " + files;
  } else {
    out = files;
  }
  if (engine.contains("temperature")) {
    out +=
        fmt::format("; {} K, {}", quantity(engine["temperature"]),
                    engine.value("npt", false)
                        ? fmt::format("NPT at {} atm", quantity(engine.value("pressure", json())))
                        : std::string("NVT"));
  }
  return out;
}

}  // namespace

// "builtin (potential muller_brown, overdamped dynamics at kT 1 (reduced units); a point of the
// 2-D CV space, dt 0.0001 reduced units)", "openmm (conf_file /x/ala2.pdb, force field
// amber14-all.xml; platform CPU requested (mixed precision), ran on CPU; 300 K, NVT; 22 atoms,
// dt 0.002 ps, lengths in nm)".
std::string engine_description(const json& s, const json& config) {
  const auto& e = s.value("engine", json::object());
  if (!e.is_object() || e.empty()) return "n/a";
  const std::string kind = e.value("engine", "unknown");
  std::string out = kind + " (";
  const auto setup = engine_setup(kind, config, s);
  if (!setup.empty()) out += setup + "; ";
  if (e.value("molecular", false)) {
    out +=
        fmt::format("{} atoms, dt {} {}, lengths in {}{})", value_text(e["n_atoms"]),
                    value_text(e["dt"]), value_text(e["time_unit"]), value_text(e["length_unit"]),
                    e.value("periodic", false) ? ", periodic box" : "");
  } else {
    out +=
        fmt::format("a point of the {}-D CV space, dt {} {} units)", value_text(e["spatial_dim"]),
                    value_text(e["dt"]), value_text(e["time_unit"]));
  }
  return out;
}

namespace {

Rows run_rows(const json& s, const json& config) {
  Rows rows = {{"run directory", value_text(s["run_dir"])},
               {"state", s.value("running", false)
                             ? "running: the page shows the iterations committed when it was made"
                             : "not running"},
               {"written by", "trails " + value_text(s["trails_version"]) + ", store schema " +
                                  value_text(s["schema_version"]) + ", created " +
                                  value_text(s["created_at"])},
               {"configuration digest", value_text(s["config_digest"])},
               {"engine", engine_description(s, config)}};
  rows.emplace_back(
      "iterations",
      fmt::format("{} committed of {} (last: iteration {}, committed {})",
                  value_text(s["iterations_committed"]), value_text(s["target_iterations"]),
                  value_text(s["last_iteration"]), value_text(s["last_committed_at"])));
  const auto& w = s["walkers"];
  rows.emplace_back("walkers",
                    fmt::format("{} in the last iteration ({} failed)",
                                value_text(w["last_iteration"]), value_text(w["failed"])));
  rows.emplace_back("frames", fmt::format("{} in all ({} in the last iteration)",
                                          value_text(s["frames"]["cumulative"]),
                                          value_text(s["frames"]["last_iteration"])));
  const auto& o = s["occupancy"];
  rows.emplace_back(
      "occupancy",
      fmt::format("{} of {} bins ({:.2f} %), grid {} bins per axis", value_text(o["occupied_bins"]),
                  value_text(o["total_bins"]), 100.0 * o.value("fraction", 0.0),
                  value_text(s["resolution"]["n_bins"])));
  return rows;
}

Rows time_rows(const ReportInputs& in) {
  const auto& t = in.status["time"];
  double build_s = 0.0;
  for (const auto& b : in.builds) build_s += b.build_s;
  Rows rows = {
      {"MD (walkers)", fmt::format("{:.2f} s", t.value("runner_s", 0.0))},
      {"analysis", fmt::format("{:.2f} s ({:.2f} % of MD)", t.value("analysis_s", 0.0),
                               100.0 * t.value("analysis_fraction", 0.0))},
      {"per iteration", fmt::format("{:.3f} s on average", t.value("mean_iteration_s", 0.0))}};
  if (!in.builds.empty()) {
    rows.emplace_back("MSM builds", fmt::format("{:.2f} s in {} builds (they may overlap the MD)",
                                                build_s, in.builds.size()));
  }
  return rows;
}

std::string placement_table(const json& s) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& p : s.value("placement", json::array())) {
    const auto& where = p["where"];
    std::string walkers;
    for (const auto& w : p["walkers"]) walkers += (walkers.empty() ? "" : " ") + value_text(w);
    rows.push_back({value_text(where["platform"]), value_text(where["device"]),
                    value_text(where["visible_devices"]), value_text(where["host"]), walkers});
  }
  if (rows.empty()) return html::paragraph("No placement recorded.", "note");
  return html::table({"platform", "device", "visible devices", "host", "walkers"}, rows);
}

std::string config_changes_table(const json& s) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : s.value("config_changes", json::array())) {
    rows.push_back({value_text(c["key"]), c["before"].dump(), c["after"].dump(),
                    value_text(c["iteration"]), value_text(c["changed_at"])});
  }
  if (rows.empty()) return "";
  return "<h3>Configuration changed on resume</h3>\n" +
         html::table({"key", "before", "after", "from iteration", "changed at"}, rows);
}

}  // namespace

std::string summary_section(const ReportInputs& in) {
  std::string body = html::key_values(run_rows(in.status, in.config));
  body += "<h3>Wall time</h3>\n" + html::key_values(time_rows(in));
  body += "<h3>Platform and devices (last iteration)</h3>\n" + placement_table(in.status);
  body += config_changes_table(in.status);
  body += html::details("Result-relevant configuration", html::pre(in.config.dump(2)));
  body += html::paragraph("Page made " + in.generated_at + " by trails report.", "note");
  return html::section("summary", "Run summary", body);
}

std::string msm_section(const ReportInputs& in) {
  if (in.builds.empty()) {
    return html::section(
        "msm", "MSM builds",
        html::paragraph(msm_enabled(in.config)
                            ? "No MSM built: the in-loop MSM is enabled but has not had enough "
                              "frames yet (msm.min_frames)."
                            : "No MSM built: the in-loop MSM is off (msm.enabled is false).",
                        "note"));
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& b : in.builds) {
    const auto& m = b.record;
    rows.push_back({std::to_string(b.iteration), std::to_string(m.frames), m.estimator,
                    std::to_string(m.lagtime), fmt::format("{}/{}", m.n_active, m.n_microstates),
                    short_numbers(m.timescales), m.vamp2 ? short_number(*m.vamp2) : "n/a",
                    yes_no(m.criteria_met), std::to_string(m.streak), yes_no(m.converged),
                    fmt::format("{:.3f}", b.build_s), m.note});
  }
  std::string body = html::table(
      {"iteration", "frames", "estimator", "lag (frames)", "active/microstates",
       "timescales (frames)", "VAMP-2", "criteria met", "streak", "converged", "build (s)", "note"},
      rows);
  const auto& m = in.builds.back().record;
  if (m.metastable_populations) {
    std::vector<std::vector<std::string>> sets;
    for (std::size_t i = 0; i < m.metastable_populations->size(); ++i) {
      sets.push_back({std::to_string(i), short_number((*m.metastable_populations)[i])});
    }
    body += fmt::format("<h3>PCCA+ metastable sets of the build at iteration {}</h3>\n",
                        in.builds.back().iteration) +
            html::table({"set", "population"}, sets);
    if (m.pcca_crispness) body += html::paragraph("crispness " + short_number(*m.pcca_crispness));
  }
  return html::section("msm", "MSM builds", body);
}

std::string analysis_section(const ReportInputs& in) {
  std::string body;
  if (!in.analysis) {
    body +=
        html::paragraph("trails analyze made no report for this run: " + in.analysis_error, "note");
  } else {
    std::string summary;  // its text without the "wrote" lines (they name scratch files)
    for (std::string_view rest = in.analysis->text; !rest.empty();) {
      const auto end = rest.find('\n');
      const auto line = rest.substr(0, end == std::string_view::npos ? rest.size() : end + 1);
      if (!line.starts_with("wrote ")) summary += line;
      rest.remove_prefix(line.size());
    }
    body += html::pre(summary);
    const json& j = in.analysis->summary;
    if (const auto it = j.find("metastable"); it != j.end()) {
      std::vector<std::vector<std::string>> sets;
      const auto& pops = (*it)["populations"];
      const auto& fe = (*it)["free_energy"];
      for (std::size_t i = 0; i < pops.size(); ++i) {
        sets.push_back({std::to_string(i), value_text(pops[i]), value_text(fe[i])});
      }
      body += "<h3>Metastable sets</h3>\n" +
              html::table({"set", "population",
                           "free energy (" + j.value("energy_unit", std::string("n/a")) + ")"},
                          sets);
    }
    // Results `trails analyze` reports beyond those above (MFPTs, coarse matrices, ...).
    static const std::set<std::string> kShown = {
        "run_dir",       "outfile", "builds",      "builds_with_model",
        "temperature_k", "kT",      "energy_unit", "time",
        "latest",        "series",  "tail",        "free_energy",
        "metastable"};
    for (const auto& [key, value] : j.items()) {
      if (!kShown.contains(key)) body += html::details(key, html::pre(value.dump(2)));
    }
  }
  for (const auto& t : in.tables) {
    const bool cut = t.bytes.size() > kMaxTableBytes;
    std::string shown = cut ? t.bytes.substr(0, kMaxTableBytes) : t.bytes;
    if (cut) shown += fmt::format("\n[first {} of {} bytes]", kMaxTableBytes, t.bytes.size());
    body += html::details(t.producer + ": " + t.name, html::pre(shown));
  }
  return html::section("analysis", "MSM analysis (trails analyze)", body);
}

std::string convergence_section(const ReportInputs& in) {
  const auto& c = in.status["convergence"];
  std::string body = c.value("converged", false)
                         ? html::paragraph("Converged: " + c.value("reason", std::string()), "ok")
                         : html::paragraph("Not converged.", "bad");
  if (!in.builds.empty()) {
    const auto& b = in.builds.back();
    const auto& m = b.record;
    Rows rows = {{"criteria met", yes_no(m.criteria_met)},
                 {"lag guard", m.lag_guard_ok ? "ok" : "failed"},
                 {"streak", std::to_string(m.streak)},
                 {"converged", yes_no(m.converged)},
                 {"reason", m.reason.empty() ? "n/a" : m.reason}};
    std::string_view rest = m.criteria;
    for (int k = 1; !rest.empty(); ++k) {
      const auto end = rest.find("; ");
      rows.emplace_back(fmt::format("criterion {}", k), std::string(rest.substr(0, end)));
      rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 2);
    }
    body += fmt::format("<h3>MSM convergence monitor after the build at iteration {}</h3>\n",
                        b.iteration) +
            html::key_values(rows);
  }
  body += "<h3>convergence.json (written when trails run ends)</h3>\n";
  if (in.convergence_file) {
    Rows rows;
    for (const auto& [k, v] : in.convergence_file->items()) rows.emplace_back(k, value_text(v));
    body += html::key_values(rows);
  } else {
    body += html::paragraph(in.convergence_file_error, "note");
  }
  return html::section("convergence", "Convergence", body);
}

std::string failures_section(const ReportInputs& in) {
  std::string body;
  if (in.failures.empty()) {
    body += html::paragraph("No walker failed in the committed iterations.");
  } else {
    std::vector<std::vector<std::string>> rows;
    for (const auto& f : in.failures) {
      const auto& w = f.walker;
      rows.push_back({std::to_string(f.iteration), std::to_string(w.walker), std::to_string(w.seed),
                      w.platform, w.device, w.host, fmt::format("{:.3f}", w.startup_s)});
    }
    body += html::table(
        {"iteration", "walker", "seed", "platform", "device", "host", "startup (s)"}, rows);
    body += "<h3>Walker logs</h3>\n";
    for (std::size_t i = 0; i < in.failures.size() && i < kMaxLogs; ++i) {
      const auto& f = in.failures[i];
      body += html::details(fmt::format("iteration {}, walker {}", f.iteration, f.walker.walker),
                            html::pre(f.walker.error), in.failures.size() <= kMaxOpenLogs);
    }
    if (in.failures.size() > kMaxLogs) {
      body += html::paragraph(fmt::format("The logs of the other {} failed walkers are in the "
                                          "ledger (table walkers, column error).",
                                          in.failures.size() - kMaxLogs),
                              "note");
    }
  }
  body += html::paragraph(
      "An iteration in which too many walkers failed (min_success_fraction) is not committed; "
      "trails run reports its walkers' errors when it stops.",
      "note");
  return html::section("failures", "Failures", body);
}

std::string read_file_bytes(const std::filesystem::path& file) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  std::ifstream in(file, std::ios::binary);
  std::string bytes(ec ? 0 : size, '\0');
  if (ec || !in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) {
    throw core::StoreError("cannot read " + file.string());
  }
  return bytes;
}

}  // namespace trails::report::detail
