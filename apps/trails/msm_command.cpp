// `trails msm` (commands.h): a Markov state model of discrete trajectories or of a run's CVs,
// with its implied timescales and PCCA+ network as pictures (docs/analysis.md, "Standalone use").
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "commands.h"
#include "trails/core/error.h"
#include "trails/core/output_target.h"
#include "trails/report/msm/msm_tool.h"

namespace trails::app {
namespace fs = std::filesystem;

namespace {

struct MsmOptions {
  report::MsmRequest request;
  std::string its;
  std::optional<fs::path> json;
  std::optional<fs::path> plot;
  std::optional<fs::path> network;
  std::optional<fs::path> run;
  bool nonreversible = false;
  std::optional<int> pcca;
};

std::vector<int> parse_lags(const std::string& text) {
  std::vector<int> lags;
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    int v = 0;
    const auto r = std::from_chars(item.data(), item.data() + item.size(), v);
    if (r.ec != std::errc() || r.ptr != item.data() + item.size() || v < 1) {
      throw core::UsageError("--its: '" + item + "' is not a lag >= 1 (give L1,L2,...)");
    }
    lags.push_back(v);
  }
  return lags;
}

// The one-line summary printed when the model goes to a file.
std::string msm_summary(const nlohmann::json& j, const fs::path& written) {
  std::string ts;
  for (const auto& t : j["timescales"]) {
    ts +=
        (ts.empty() ? "" : ", ") + (t.is_number() ? fmt::format("{:.6g}", t.get<double>()) : "inf");
  }
  std::string meta;
  if (j.contains("pcca")) {
    std::string pops;
    for (const auto& p : j["pcca"]["populations"]) {
      pops += (pops.empty() ? "" : ", ") + fmt::format("{:.4g}", p.get<double>());
    }
    meta = fmt::format("; {} PCCA+ sets, metastable populations [{}]",
                       j["pcca"]["n_sets"].get<int>(), pops);
  }
  return fmt::format("MSM lag {}: {}/{} states active, timescales [{}] frames{}; wrote {}\n",
                     j["lag"].get<int>(), j["active_set"].size(), j["n_states"].get<int>(), ts,
                     meta, written.string());
}

int cmd_msm(MsmOptions& o) {
  o.request.pcca = o.pcca;
  o.request.run_dir = o.run;
  o.request.reversible = !o.nonreversible;
  for (const int lag : parse_lags(o.its)) o.request.its_lags.push_back(lag);
  // Both outputs are checked before the model is estimated (docs/reliability.md).
  std::vector<std::pair<std::string, fs::path>> named;
  if (o.json) named.emplace_back("--json", *o.json);
  if (o.plot) named.emplace_back("--plot", *o.plot);
  if (o.network) named.emplace_back("--network", *o.network);
  if (o.network && !o.pcca) {
    throw core::UsageError("--network draws the PCCA+ sets: give --pcca K as well");
  }
  const auto targets = core::check_outputs(named);
  const auto j = report::msm_report(o.request);
  const auto target_of = [&](const std::string& option) {
    const auto at =
        std::find_if(named.begin(), named.end(), [&](const auto& n) { return n.first == option; });
    return targets.at(static_cast<std::size_t>(at - named.begin()));
  };
  if (o.plot) {
    report::plot_msm_its(j, target_of("--plot"));
    fmt::print(o.json ? stdout : stderr, "wrote {}\n", o.plot->string());
  }
  if (o.network) {
    report::plot_msm_network(j, target_of("--network"));
    fmt::print(o.json ? stdout : stderr, "wrote {}\n", o.network->string());
  }
  if (!o.json) {
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  core::write_output(target_of("--json"), j.dump(2) + "\n");
  fmt::print("{}", msm_summary(j, *o.json));
  return 0;
}

}  // namespace

Command add_msm(CLI::App& app) {
  auto o = std::make_shared<MsmOptions>();
  auto& r = o->request;
  auto* msm = app.add_subcommand(
      "msm", "Estimate a Markov state model of discrete trajectories or of a run's CVs");
  msm->add_option(
      "DTRAJ", r.dtrajs,
      "Discrete trajectories: .npy integer arrays or text (one state per line), one file each");
  msm->add_option("--run", o->run,
                  "Cluster this run directory's CVs (k-means) instead of reading DTRAJ files");
  msm->add_option("--clusters", r.clusters, "With --run: k-means microstates (default 100)");
  msm->add_option("--seed", r.seed, "With --run: k-means++ seed (default 42)");
  msm->add_option("--lag", r.lag, "Lag time in frames")->required();
  msm->add_flag("--nonreversible", o->nonreversible,
                "Non-reversible MLE (default: reversible MLE)");
  msm->add_option("--its", o->its, "Implied-timescale lags, comma-separated (L1,L2,...)");
  msm->add_option("--timescales", r.n_timescales, "Timescales reported per lag (default 5)");
  msm->add_option("--pcca", o->pcca,
                  "PCCA+: K metastable sets of the reversible model (JSON key pcca)");
  msm->add_option("--json", o->json, "Write the model as JSON to this file (default: stdout)");
  msm->add_option("--plot", o->plot,
                  "Draw the implied timescales (--its lags) as a PNG to this file (physical time "
                  "with --run where engine.dt gives it)");
  msm->add_option("--network", o->network,
                  "With --pcca: draw the metastable sets (population, MFPTs, coarse transition "
                  "probabilities) as a PNG to this file");
  return {msm, [o] { return cmd_msm(*o); }};
}

}  // namespace trails::app
