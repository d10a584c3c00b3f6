// MPS and MIG awareness (docs/execution.md, "MPS and MIG"). Several workers on one GPU share it
// well only under an MPS control daemon; without one their kernels time-slice. The probe takes
// its paths as inputs so tests can fake a daemon with a temporary directory.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trails/exec/local/device_plan.h"

namespace trails::exec {

struct MpsProbeInputs {
  std::optional<std::filesystem::path> pipe_directory;  // $CUDA_MPS_PIPE_DIRECTORY
  std::filesystem::path default_pipe_directory = "/tmp/nvidia-mps";
  std::filesystem::path proc_root = "/proc";  // scanned for nvidia-cuda-mps-* processes
};
MpsProbeInputs mps_inputs_from_environment();

struct MpsStatus {
  bool daemon = false;
  std::string evidence;  // "control pipe /tmp/nvidia-mps/control", "process ... (pid 42)", ""
};

// A daemon is seen when the pipe directory (the variable's, else the default) holds the
// `control` pipe, or a process named nvidia-cuda-mps-control / -server runs on this node.
MpsStatus probe_mps(const MpsProbeInputs& inputs);

// "MPS control daemon: yes (control pipe ...)" / "no"; MIG instances of the plan appended.
std::string describe_mps_mig(const MpsStatus& mps, const DevicePlan& plan);

// Warnings for the run log: workers_per_device > 1 on an engine that uses devices without an MPS
// daemon (workers time-slice the GPU); more than one MIG instance in one process (CUDA
// enumerates only one MIG device per process).
std::vector<std::string> packing_warnings(const DevicePlan& plan, bool engine_uses_devices,
                                          const MpsStatus& mps, const std::string& workers_key);

}  // namespace trails::exec
