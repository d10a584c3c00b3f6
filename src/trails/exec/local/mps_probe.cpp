#include "trails/exec/local/mps_probe.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <system_error>

namespace trails::exec {
namespace {

// /proc/<pid>/comm holds at most 15 characters: "nvidia-cuda-mps" for control and server.
constexpr std::string_view kMpsComm = "nvidia-cuda-mps";

std::optional<std::string> mps_process(const std::filesystem::path& proc_root) {
  std::error_code ec;
  std::filesystem::directory_iterator it(proc_root, ec);
  if (ec) return std::nullopt;
  for (const auto& entry : it) {
    const std::string pid = entry.path().filename().string();
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream comm(entry.path() / "comm");
    std::string name;
    if (!std::getline(comm, name)) continue;
    if (name.rfind(kMpsComm, 0) == 0) return fmt::format("process {} (pid {})", name, pid);
  }
  return std::nullopt;
}

}  // namespace

MpsProbeInputs mps_inputs_from_environment() {
  MpsProbeInputs in;
  if (const char* v = std::getenv("CUDA_MPS_PIPE_DIRECTORY"); v != nullptr && *v != '\0') {
    in.pipe_directory = v;
  }
  return in;
}

MpsStatus probe_mps(const MpsProbeInputs& inputs) {
  const auto pipe = inputs.pipe_directory.value_or(inputs.default_pipe_directory) / "control";
  std::error_code ec;
  if (std::filesystem::exists(pipe, ec)) return {true, "control pipe " + pipe.string()};
  if (auto process = mps_process(inputs.proc_root)) return {true, *process};
  return {};
}

std::string describe_mps_mig(const MpsStatus& mps, const DevicePlan& plan) {
  std::string out = mps.daemon ? "MPS control daemon: yes (" + mps.evidence + ")"
                               : std::string("MPS control daemon: no");
  if (plan.n_mig() > 0) out += fmt::format("; {} MIG instance(s) in the plan", plan.n_mig());
  return out;
}

std::vector<std::string> packing_warnings(const DevicePlan& plan, bool engine_uses_devices,
                                          const MpsStatus& mps, const std::string& workers_key) {
  std::vector<std::string> out;
  if (!engine_uses_devices || plan.devices.empty()) return out;
  if (plan.workers_per_device > 1 && !mps.daemon) {
    out.push_back(fmt::format(
        "{}: {} workers share each GPU but no MPS control daemon was found (checked "
        "$CUDA_MPS_PIPE_DIRECTORY or /tmp/nvidia-mps for the control pipe, and the process "
        "list): their kernels will time-slice; start one with `nvidia-cuda-mps-control -d` or "
        "use 1 worker per device",
        workers_key, plan.workers_per_device));
  }
  if (plan.n_mig() > 1) {
    out.push_back(fmt::format(
        "{} MIG instances in one process: CUDA enumerates only one MIG device per process, so "
        "the others are not reachable; run one trails process per MIG instance",
        plan.n_mig()));
  }
  return out;
}

}  // namespace trails::exec
