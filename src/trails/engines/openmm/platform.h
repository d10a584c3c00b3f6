// OpenMM platforms as Trails-MD chooses them: plugin loading, platform lookup with fallback,
// per-platform properties (precision, device index, CPU threads) and the CPU thread cap from the
// environment. Separate from the engine so the choices are unit-testable without a Context.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "trails/config/engine_spec.h"

namespace OpenMM {
class Platform;
}

namespace trails::engines::openmm {

// The folder load_openmm_plugins reads: $OPENMM_PLUGIN_DIR, else the OpenMM prefix's
// lib/plugins for an -DOpenMM_ROOT build, else OpenMM's default (Debian's plugin folder).
std::string openmm_plugin_dir();

// The version of the OpenMM library this process runs ("7.7", "8.6.1").
std::string openmm_version();

// Loads OpenMM's plugins once per process. The Amoeba/Drude/RPMD libraries fail to load on
// Debian (their directory is not on the loader path); that is harmless and is not reported.
void load_openmm_plugins();

// First positive integer among OPENMM_CPU_THREADS, SLURM_CPUS_PER_TASK, OMP_NUM_THREADS.
std::optional<int> cpu_threads_from_env();

// Properties for a Context on `platform`: CUDA {Precision, DeviceIndex}, OpenCL
// {OpenCLPrecision, OpenCLDeviceIndex}, HIP {HipDeviceIndex}, CPU {Threads}, Reference {}.
// The device key only when device_index is set; Threads only when a cap is given.
std::map<std::string, std::string> platform_properties(const std::string& platform,
                                                       const std::string& precision,
                                                       std::optional<int> device_index,
                                                       std::optional<int> cpu_threads);

// The platform to use for `requested`: itself if this OpenMM has it, else CPU (or the fastest
// available) with `warning` set to a sentence saying so.
std::string resolve_platform(const std::string& requested, std::string* warning);

// CUDA, OpenCL and HIP: platforms whose Contexts hold kernels compiled for a device.
bool is_gpu_platform(const std::string& platform);

// engine.reproducibility for a Context on `platform`: true when a warm Context is re-armed
// without rebuilding its kernels (fast), false when it is re-seeded by Context::reinitialize
// (bitwise). Auto is fast exactly on the GPU-type platforms (docs/engines.md, "Reproducibility").
bool fast_rearm(config::Reproducibility reproducibility, const std::string& platform);

}  // namespace trails::engines::openmm
