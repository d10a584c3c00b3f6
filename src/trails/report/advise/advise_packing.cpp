#include "trails/report/advise/advise_packing.h"

#include <fmt/format.h>

namespace trails::report {

using nlohmann::json;

json packing_advice(const json& record) {
  const bool ps = record.value("time_unit", std::string()) == "ps";
  const double dt = record.value("dt", 0.0);
  double base = 0.0;  // k = 1's steps/s
  json trials = json::array();
  for (const json& t : record.at("trials")) {
    json row = t;
    const bool ok = !t.at("failed").get<bool>();
    const double rate = t.at("steps_per_s").get<double>();
    if (t.at("workers_per_device").get<int>() == 1 && ok) base = rate;
    // ns/day = steps/s × dt [ps] × 86400 s/day ÷ 1000 ps/ns
    row["ns_per_day"] = ok && ps ? json(rate * dt * 86.4) : json(nullptr);
    row["ratio_to_1"] = ok && base > 0.0 ? json(rate / base) : json(nullptr);
    trials.push_back(row);
  }
  return {{"trials", trials},
          {"done", record.at("done")},
          {"chosen", record.at("chosen")},
          {"workers_per_device", packing_workers_per_device(record)},
          {"reason", record.at("reason")},
          {"rule", record.at("rule")},
          {"measured_per_slot", record.at("measured_per_slot")}};
}

int packing_workers_per_device(const json& record) {
  return record.at("done").get<bool>() ? record.at("chosen").get<int>()
                                       : record.at("next").get<int>();
}

std::string format_packing(const json& p) {
  std::string out = fmt::format(
      "\nwalkers per device (execution.workers_per_device: auto; aggregate throughput of a "
      "device, {} measured walker(s) per slot after one warm-up)\n",
      p.at("measured_per_slot").get<int>());
  out += fmt::format("{:>10} {:>14} {:>12} {:>8} {:>8}\n", "k", "steps/s", "ns/day", "÷ k=1",
                     "walkers");
  for (const json& t : p.at("trials")) {
    const int k = t.at("workers_per_device").get<int>();
    if (t.at("failed").get<bool>()) {
      out += fmt::format("{:>10} failed: {}\n", k, t.at("failure").get<std::string>());
      continue;
    }
    const json& ns = t.at("ns_per_day");
    const json& ratio = t.at("ratio_to_1");
    out +=
        fmt::format("{:>10} {:>14.4g} {:>12} {:>8} {:>8}\n", k, t.at("steps_per_s").get<double>(),
                    ns.is_null() ? std::string("-") : fmt::format("{:.4g}", ns.get<double>()),
                    ratio.is_null() ? std::string("-") : fmt::format("{:.2f}", ratio.get<double>()),
                    t.at("walkers").get<int>());
  }
  out +=
      p.at("done").get<bool>()
          ? fmt::format("  chosen: {} walker(s) per device ({})\n", p.at("chosen").get<int>(),
                        p.at("reason").get<std::string>())
          : fmt::format("  still measuring: {} walker(s) per device next ({})\n",
                        p.at("workers_per_device").get<int>(), p.at("reason").get<std::string>());
  return out;
}

}  // namespace trails::report
