#include "trails/engines/gromacs/mdrun_command.h"

#include <fmt/format.h>

#include <cstdlib>

namespace trails::engines::gromacs {
namespace {

std::optional<int> positive_env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (end == v || *end != '\0' || n <= 0 || n > 1 << 20) return std::nullopt;
  return static_cast<int>(n);
}

}  // namespace

std::optional<int> resolved_ntomp(const config::GromacsEngineConfig& config) {
  if (config.mdrun_ntomp) return config.mdrun_ntomp;
  if (auto n = positive_env("OMP_NUM_THREADS")) return n;
  return positive_env("SLURM_CPUS_PER_TASK");
}

bool uses_gpu(const config::GromacsEngineConfig& config) {
  for (const auto* o :
       {&config.mdrun_nb, &config.mdrun_pme, &config.mdrun_update, &config.mdrun_bonded}) {
    if (*o == "gpu") return true;
  }
  return false;
}

std::string device_record(const config::GromacsEngineConfig& config, const Slot& slot) {
  if (slot.device && uses_gpu(config)) {
    return fmt::format("GPU device {} (-gpu_id {})", *slot.device, *slot.device);
  }
  const auto ntomp = resolved_ntomp(config);
  return fmt::format("CPU (-ntmpi {}{})", config.mdrun_ntmpi,
                     ntomp ? fmt::format(" -ntomp {}", *ntomp) : "");
}

std::vector<std::string> mdrun_command(const config::GromacsEngineConfig& config, const Slot& slot,
                                       std::int64_t steps) {
  std::vector<std::string> a = {config.executable,
                                "mdrun",
                                "-s",
                                "walker.tpr",
                                "-o",
                                "traj.trr",
                                "-c",
                                "confout.gro",
                                "-e",
                                "ener.edr",
                                "-g",
                                "md.log",
                                "-cpo",
                                "state.cpt",
                                "-nsteps",
                                std::to_string(steps),
                                "-ntmpi",
                                std::to_string(config.mdrun_ntmpi)};
  const std::optional<int> ntomp = resolved_ntomp(config);
  if (ntomp) a.insert(a.end(), {"-ntomp", std::to_string(*ntomp)});
  const std::pair<const char*, const std::optional<std::string>*> presets[] = {
      {"-nb", &config.mdrun_nb},
      {"-pme", &config.mdrun_pme},
      {"-update", &config.mdrun_update},
      {"-bonded", &config.mdrun_bonded}};
  for (const auto& [flag, value] : presets) {
    if (*value) a.insert(a.end(), {flag, **value});
  }
  if (slot.device && uses_gpu(config)) a.insert(a.end(), {"-gpu_id", std::to_string(*slot.device)});
  if (config.mdrun_pin) {
    a.insert(a.end(), {"-pin", *config.mdrun_pin});
    if (*config.mdrun_pin == "on" && ntomp) {
      const int threads = config.mdrun_ntmpi * *ntomp;
      a.insert(a.end(), {"-pinoffset", std::to_string(slot.index * threads), "-pinstride", "1"});
    }
  }
  a.insert(a.end(), config.mdrun_extra_args.begin(), config.mdrun_extra_args.end());
  return a;
}

}  // namespace trails::engines::gromacs
