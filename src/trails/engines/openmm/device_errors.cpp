// Device resource errors in OpenMM's messages (device_errors.h).
#include "trails/engines/openmm/device_errors.h"

#include <array>
#include <regex>
#include <utility>

#include "trails/engines/device_error.h"

namespace trails::engines::openmm {
namespace {

const std::string kAdvice =
    std::string(kDeviceResourceError) +
    ", which is not a problem of the dynamics (engine.dt is not the cause): put fewer walkers on "
    "each device (execution.workers_per_device, "
    "spawning.max_workers), use a device with more memory, or engine.precision: single";

// OpenMM words OpenCL failures as "<what>: <clFunction> (<code>)".
std::string opencl_code_name(const std::string& what) {
  static const std::regex call(R"(\bcl[A-Z][A-Za-z]* \((-[0-9]+)\))");
  static const std::array<std::pair<const char*, const char*>, 4> codes{{
      {"-4", "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
      {"-5", "CL_OUT_OF_RESOURCES"},
      {"-6", "CL_OUT_OF_HOST_MEMORY"},
      {"-61", "CL_INVALID_BUFFER_SIZE"},
  }};
  for (auto it = std::sregex_iterator(what.begin(), what.end(), call); it != std::sregex_iterator();
       ++it) {
    for (const auto& [code, name] : codes) {
      if ((*it)[1] == code) return name;
    }
  }
  return {};
}

}  // namespace

std::string device_resource_problem(const std::string& what) {
  std::string name = opencl_code_name(what);
  if (name.empty()) {
    for (const char* known :
         {"CL_OUT_OF_RESOURCES", "CL_MEM_OBJECT_ALLOCATION_FAILURE", "CUDA_ERROR_OUT_OF_MEMORY",
          "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "hipErrorOutOfMemory", "out of memory"}) {
      if (what.find(known) != std::string::npos) {
        name = known;
        break;
      }
    }
  }
  if (name.empty()) return {};
  return name + ": " + kAdvice;
}

}  // namespace trails::engines::openmm
