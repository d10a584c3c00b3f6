// The text form of `trails advise` (advise.h), written from its JSON form so that both say the
// same; docs/advise.md shows an example and how to read it.
#include <fmt/format.h>

#include "trails/report/advise/advise.h"
#include "trails/report/advise/advise_packing.h"

namespace trails::report {
namespace {

using nlohmann::json;

// The table shows the last this-many iterations; --json has them all.
constexpr std::size_t kTableRows = 20;

std::string cell(const json& seconds) {
  return seconds.is_number() ? analysis::format_duration(seconds.get<double>()) : "-";
}

std::string row(const std::string& label, const json& r) {
  return fmt::format("{:>10} {:>8} {:>10} {:>10} {:>12} {:>10} {:>11} {:>13}\n", label,
                     r.at("walkers").get<std::int64_t>(), cell(r.at("wall_s")),
                     cell(r.at("startup_s")), cell(r.at("integrate_s")), cell(r.at("idle_s")),
                     cell(r.at("frame_s")), cell(r.at("other_s")));
}

std::string share(const json& total, const char* key) {
  const double wall = total.at("wall_s").get<double>();
  if (!total.at(key).is_number() || wall <= 0.0) return "-";
  return fmt::format("{:.1f} %", 100.0 * total.at(key).get<double>() / wall);
}

std::string execution_line(const json& x) {
  const std::string backend = x.at("backend").get<std::string>();
  if (backend != "local" && backend != "mpi") {
    const json& at_once = x.at("tasks_in_flight");
    return fmt::format("{} slot(s): array tasks of {} walker(s), {} at once, {} backend",
                       x.at("slots").get<int>(), x.at("walkers_per_task").get<int>(),
                       at_once.is_null() ? std::string("all") : std::to_string(at_once.get<int>()),
                       backend);
  }
  std::string where = x.at("devices").get<int>() > 0
                          ? fmt::format("{} device(s) × {} worker(s)", x.at("devices").get<int>(),
                                        x.at("workers_per_device").get<int>())
                          : "spawning.max_workers";
  return fmt::format("{} slot(s) ({}), {}, {} backend", x.at("slots").get<int>(), where,
                     x.at("persistent_workers").get<bool>() ? "persistent worker processes"
                                                            : "threads of the driver",
                     x.at("backend").get<std::string>());
}

std::string table(const json& a) {
  const auto& rows = a.at("breakdown").at("iterations");
  const auto& total = a.at("breakdown").at("total");
  std::string out = fmt::format(
      "\nwhere the time went (wall time; start-up and integration are the walkers' slot time "
      "÷ {} slots)\n",
      a.at("execution").at("slots").get<int>());
  out += fmt::format("{:>10} {:>8} {:>10} {:>10} {:>12} {:>10} {:>11} {:>13}\n", "iteration",
                     "walkers", "wall", "start-up", "integration", "idle", "frame work",
                     "commit+other");
  const std::size_t first = rows.size() > kTableRows ? rows.size() - kTableRows : 0;
  if (first > 0) out += fmt::format("{:>10} ({} earlier iterations: --json)\n", "...", first);
  for (std::size_t i = first; i < rows.size(); ++i) {
    out += row(std::to_string(rows[i].at("iteration").get<std::int64_t>()), rows[i]);
  }
  out += row("total", total);
  out += fmt::format("{:>10} {:>8} {:>10} {:>10} {:>12} {:>10} {:>11} {:>13}\n", "share", "",
                     "100 %", share(total, "startup_s"), share(total, "integrate_s"),
                     share(total, "idle_s"), share(total, "frame_s"), share(total, "other_s"));
  return out;
}

std::string model(const json& m) {
  std::string out = fmt::format(
      "\nmodel (docs/advise.md): iteration = ⌈W/S⌉ × (s + N × τ) + d + F × frames/frames now + "
      "C, fitted on iterations {}-{} ({} walkers × {} steps on {} slots)\n",
      m.at("first_iteration").get<std::int64_t>(), m.at("last_iteration").get<std::int64_t>(),
      m.at("walkers").get<std::int64_t>(), m.at("steps").get<std::int64_t>(),
      m.at("slots").get<int>());
  out += fmt::format("  s  start-up per walker     {} (median; mean {})\n", cell(m.at("startup_s")),
                     cell(m.at("mean_startup_s")));
  out += fmt::format("  τ  integration per step    {}\n", cell(m.at("step_s")));
  out += fmt::format("  d  dispatch and imbalance  {}\n", cell(m.at("dispatch_s")));
  out += fmt::format("  F  frame work              {}\n", cell(m.at("frame_s")));
  out += fmt::format("  C  commit and bookkeeping  {}\n", cell(m.at("other_s")));
  out += fmt::format("  now: {}\n", m.at("equation").get<std::string>());
  out += fmt::format("  start-up is {:.1f} % of a walker's time\n",
                     100.0 * m.at("startup_fraction").get<double>());
  return out;
}

std::string recommendations(const json& a) {
  const auto& recs = a.at("recommendations");
  if (recs.empty()) {
    return fmt::format(
        "\nrecommendations: none; no change priced by the model would raise the MD throughput "
        "by {:.0f} % or more\n",
        100.0 * (a.at("options").at("min_speedup").get<double>() - 1.0));
  }
  std::string out = "\nrecommendations (each priced alone against the current settings)\n";
  for (const auto& r : recs) {
    out += fmt::format("  {}: {} (now {}): expected {:.3g}× the MD per second\n",
                       r.at("key").get<std::string>(), r.at("value").get<std::int64_t>(),
                       r.at("current").get<std::int64_t>(), r.at("speedup").get<double>());
    out += fmt::format("    why: {}\n", r.at("reason").get<std::string>());
    out += fmt::format("    model: {}\n", r.at("arithmetic").get<std::string>());
    out += fmt::format("    note: {}\n", r.at("note").get<std::string>());
  }
  return out;
}

}  // namespace

std::string format_advice(const json& a) {
  std::string out = fmt::format("run directory   {}\n", a.at("run_dir").get<std::string>());
  out += fmt::format("state           {}, {} iteration(s) committed\n",
                     a.at("running").get<bool>() ? "running" : "not running",
                     a.at("iterations_committed").get<std::int64_t>());
  out += fmt::format("execution       {}\n", execution_line(a.at("execution")));
  out += table(a);
  if (a.contains("packing")) out += format_packing(a.at("packing"));
  out += model(a.at("model"));
  out += recommendations(a);
  const auto& remarks = a.at("not_recommended");
  if (!remarks.empty()) out += "\nnot recommended\n";
  for (const auto& r : remarks) {
    out +=
        fmt::format("  {}: {}\n", r.at("key").get<std::string>(), r.at("why").get<std::string>());
  }
  for (const auto& w : a.at("warnings")) {
    out += fmt::format("\nwarning: {}\n", w.get<std::string>());
  }
  return out;
}

}  // namespace trails::report
