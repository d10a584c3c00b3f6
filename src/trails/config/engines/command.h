// The command engine's own keys, as MdSystemConfig holds them, and its spec (engine.md_engine:
// command; docs/engines.md, "The command engine"); command.cpp is its module.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "trails/config/engines/external.h"

namespace trails::config {

struct CommandKeys {
  std::vector<std::string> argv;    // engine.command
  std::optional<double> timeout_s;  // engine.command_timeout
};

// engine.md_engine: command: a user's program runs each segment (docs/engines.md, "The command
// engine"). A molecular system when conf_file is set (its PDB/GRO gives the topology and the
// reference structure; nm, ps, K), else a point system whose coordinates are the CVs (reduced
// units; start is system.start's first point and fixes the dimension).
struct CommandSpec {
  std::vector<std::string> command;  // engine.command: argv, argv[0] looked up in PATH
  std::optional<double> timeout_s;   // engine.command_timeout, else $TRAILS_MD_TIMEOUT
  double dt = 0.002;                 // engine.dt, handed to the program
  double temperature = 300.0;        // engine.temperature
  double pressure = 1.0;             // engine.pressure
  bool npt = false;                  // engine.npt
  std::optional<std::filesystem::path> conf_file;  // system.conf_file (.pdb/.gro): molecular
  std::vector<double> start;                       // point systems: system.start[0]
  WalkerFilesSpec files;
};

}  // namespace trails::config
