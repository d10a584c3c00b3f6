#include "trails/engines/openmm/platform.h"

#include <cstdlib>
#include <mutex>
#include <vector>

#include <OpenMM.h>

namespace trails::engines::openmm {

// An OpenMM built against at a prefix (-DOpenMM_ROOT, CMakeLists.txt) keeps its plugins in
// PREFIX/lib/plugins; OpenMM's compiled-in default is where that OpenMM was built (the PyPI
// wheel's says /usr/local/openmm/lib/plugins), so the build names the folder.
#ifndef TRAILS_OPENMM_PLUGIN_DIR
#define TRAILS_OPENMM_PLUGIN_DIR ""
#endif

std::string openmm_plugin_dir() {
  if (const char* env = std::getenv("OPENMM_PLUGIN_DIR"); env != nullptr && *env != '\0') {
    return env;
  }
  const std::string built = TRAILS_OPENMM_PLUGIN_DIR;
  return built.empty() ? OpenMM::Platform::getDefaultPluginsDirectory() : built;
}

std::string openmm_version() { return OpenMM::Platform::getOpenMMVersion(); }

void load_openmm_plugins() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Failures (Amoeba, Drude, RPMD on Debian) are collected by OpenMM, never printed; the core
    // platforms (Reference built in, CPU, OpenCL, CUDA) load from the same directory.
    OpenMM::Platform::loadPluginsFromDirectory(openmm_plugin_dir());
  });
}

std::optional<int> cpu_threads_from_env() {
  for (const char* name : {"OPENMM_CPU_THREADS", "SLURM_CPUS_PER_TASK", "OMP_NUM_THREADS"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    char* end = nullptr;
    const long n = std::strtol(value, &end, 10);
    if (*end == '\0' && n > 0 && n < 100000) return static_cast<int>(n);
  }
  return std::nullopt;
}

std::map<std::string, std::string> platform_properties(const std::string& platform,
                                                       const std::string& precision,
                                                       std::optional<int> device_index,
                                                       std::optional<int> cpu_threads) {
  std::map<std::string, std::string> p;
  const std::string device = device_index ? std::to_string(*device_index) : std::string();
  if (platform == "CUDA") {
    p["Precision"] = precision;
    if (device_index) p["DeviceIndex"] = device;
  } else if (platform == "OpenCL") {
    p["OpenCLPrecision"] = precision;
    if (device_index) p["OpenCLDeviceIndex"] = device;
  } else if (platform == "HIP") {
    if (device_index) p["HipDeviceIndex"] = device;
  } else if (platform == "CPU") {
    if (cpu_threads) p["Threads"] = std::to_string(*cpu_threads);
  }
  return p;
}

std::string resolve_platform(const std::string& requested, std::string* warning) {
  load_openmm_plugins();
  std::vector<std::string> names;
  for (int i = 0; i < OpenMM::Platform::getNumPlatforms(); ++i) {
    names.push_back(OpenMM::Platform::getPlatform(i).getName());
  }
  const auto has = [&](const std::string& n) {
    for (const auto& x : names) {
      if (x == n) return true;
    }
    return false;
  };
  if (has(requested)) return requested;
  std::string chosen = has("CPU") ? "CPU" : "Reference";
  if (warning) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    *warning = "engine.platform_name: OpenMM platform " + requested +
               " is not available on this machine (available: " + list + "); using " + chosen;
  }
  return chosen;
}

bool is_gpu_platform(const std::string& platform) {
  return platform == "CUDA" || platform == "OpenCL" || platform == "HIP";
}

bool fast_rearm(config::Reproducibility reproducibility, const std::string& platform) {
  switch (reproducibility) {
    case config::Reproducibility::Fast:
      return true;
    case config::Reproducibility::Bitwise:
      return false;
    case config::Reproducibility::Auto:
      break;
  }
  return is_gpu_platform(platform);
}

}  // namespace trails::engines::openmm
