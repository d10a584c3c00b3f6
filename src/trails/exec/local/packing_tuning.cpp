#include "trails/exec/local/packing_tuning.h"

#include <fmt/format.h>

#include "trails/core/error.h"

namespace trails::exec {

PackingDecision decide_packing(const std::vector<PackingTrial>& trials, const PackingRule& rule) {
  PackingDecision d;
  if (trials.empty()) {
    d.reason = "nothing measured yet";
    return d;
  }
  int expected = 1;
  for (const PackingTrial& t : trials) {
    TRAILS_CHECK(t.workers_per_device == expected, "packing trials must be k = 1, 2, 4, ...");
    expected *= 2;
  }
  const PackingTrial* best = nullptr;  // the k kept so far
  for (const PackingTrial& t : trials) {
    if (t.failed) {
      d.done = true;
      d.chosen = best ? best->workers_per_device : 1;
      d.reason = fmt::format("{} walkers per device failed: {}", t.workers_per_device, t.failure);
      break;
    }
    if (best != nullptr && t.steps_per_s <= best->steps_per_s * (1.0 + rule.min_gain)) {
      d.done = true;
      d.chosen = best->workers_per_device;
      d.reason = fmt::format(
          "{} walkers per device gave {:.4g} steps/s, not more than {:.0f} % above {}'s {:.4g}",
          t.workers_per_device, t.steps_per_s, 100.0 * rule.min_gain, best->workers_per_device,
          best->steps_per_s);
      break;
    }
    best = &t;
  }
  if (!d.done) {
    d.chosen = best->workers_per_device;
    if (2 * d.chosen > rule.max_workers_per_device) {
      d.done = true;
      d.reason = fmt::format("{} walkers per device is the most tried (max {})", d.chosen,
                             rule.max_workers_per_device);
    } else {
      d.next = 2 * d.chosen;
      d.reason = fmt::format("{} walkers per device still gaining", d.chosen);
      return d;
    }
  }
  d.next = d.chosen;
  return d;
}

namespace {

// OpenMM's OpenCL errors read "clCreateBuffer (-61)": an OpenCL call, then its status code.
// -4 CL_MEM_OBJECT_ALLOCATION_FAILURE, -5 CL_OUT_OF_RESOURCES, -6 CL_OUT_OF_HOST_MEMORY,
// -61 CL_INVALID_BUFFER_SIZE (a buffer larger than the device will allocate).
bool opencl_resource_status(const std::string& error) {
  for (std::size_t at = error.find(" (-"); at != std::string::npos;
       at = error.find(" (-", at + 1)) {
    const std::size_t word = error.rfind(' ', at - 1);
    const std::string call = error.substr(word == std::string::npos ? 0 : word + 1,
                                          at - (word == std::string::npos ? 0 : word + 1));
    if (call.rfind("cl", 0) != 0) continue;
    const std::size_t close = error.find(')', at);
    if (close == std::string::npos) continue;
    const std::string code = error.substr(at + 3, close - at - 3);
    if (code == "4" || code == "5" || code == "6" || code == "61") return true;
  }
  return false;
}

}  // namespace

bool is_resource_error(const std::string& error) {
  for (const char* marker :
       {"CL_OUT_OF_RESOURCES", "CL_OUT_OF_HOST_MEMORY", "CL_MEM_OBJECT_ALLOCATION_FAILURE",
        "CUDA_ERROR_OUT_OF_MEMORY", "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "hipErrorOutOfMemory",
        "out of memory", "Out of memory", "std::bad_alloc"}) {
    if (error.find(marker) != std::string::npos) return true;
  }
  return opencl_resource_status(error);
}

nlohmann::json to_json(const PackingTrial& t) {
  return {{"workers_per_device", t.workers_per_device},
          {"steps_per_s", t.steps_per_s},
          {"walkers", t.walkers},
          {"failed", t.failed},
          {"failure", t.failure}};
}

PackingTrial trial_from_json(const nlohmann::json& j) {
  PackingTrial t;
  t.workers_per_device = j.at("workers_per_device").get<int>();
  t.steps_per_s = j.at("steps_per_s").get<double>();
  t.walkers = j.at("walkers").get<int>();
  t.failed = j.at("failed").get<bool>();
  t.failure = j.at("failure").get<std::string>();
  return t;
}

}  // namespace trails::exec
