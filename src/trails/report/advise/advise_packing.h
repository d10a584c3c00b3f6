// The walkers-per-device search of execution.workers_per_device: auto as trails advise shows it
// (docs/advise.md, "Walkers per device"): each k's aggregate throughput per device, in steps/s
// and ns/day (when the engine's time unit is ps), and as a ratio to k = 1; the choice and why.
// Input: the "packing" element of the last committed iteration's state
// (exec/local/packing_tuner.h).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace trails::report {

// The JSON form of the search (advise's "packing"), from the committed record.
nlohmann::json packing_advice(const nlohmann::json& record);
// Its text section.
std::string format_packing(const nlohmann::json& packing);
// The walkers per device the run uses now: the choice once made, else the k being measured.
int packing_workers_per_device(const nlohmann::json& record);

}  // namespace trails::report
