// The Amber engine's own keys, as MdSystemConfig holds them, and its spec (engine.md_engine:
// amber; docs/engines.md, "The Amber engine"); amber.cpp is its module (rows, checks, spec, JSON).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trails/config/engines/external.h"

namespace trails::config {

struct AmberKeys {
  std::string executable = "pmemd";                 // engine.amber_executable
  std::optional<std::filesystem::path> input_file;  // engine.amber_input_file (mdin template)
  std::vector<std::string> extra_args;              // engine.amber_extra_args
  std::string trajectory_format = "auto";           // engine.amber_trajectory_format
};

// engine.md_engine: amber: pmemd/sander per segment (docs/engines.md, "The Amber engine").
struct AmberSpec {
  std::string executable = "pmemd";                 // engine.amber_executable
  std::optional<std::filesystem::path> input_file;  // engine.amber_input_file (mdin template)
  std::vector<std::string> extra_args;              // engine.amber_extra_args
  std::optional<double> timeout_s;                  // $TRAILS_MD_TIMEOUT: pmemd/sander
  bool netcdf = true;  // engine.amber_trajectory_format: netcdf/auto (true), ascii (false)
  std::filesystem::path top_file;   // system.top_file (prmtop)
  std::filesystem::path conf_file;  // system.conf_file (inpcrd/rst7/ncrst)
  double dt = 0.002;                // engine.dt (ps)
  double temperature = 300.0;       // engine.temperature (K)
  double pressure = 1.0;            // engine.pressure
  bool npt = false;                 // engine.npt
  WalkerFilesSpec files;
};

}  // namespace trails::config
