// The one list of MD engines (docs/architecture.md, "How to add an engine"): each entry's header
// and one X(name, Keys, Spec) line. From it come EngineConfig's member `name` of type Keys
// (md_system_config.h), the EngineSpec variant (engine_spec.h), the table of configuration
// modules name_engine_module() (registry.cpp) and the engines registry's build_engine(Spec)
// overloads (engines/build_engine.h, each defined in its engine room). The order is the
// documentation's, and engine.md_engine's choices are listed in it.
#pragma once

#include "trails/config/engines/amber.h"
#include "trails/config/engines/builtin.h"
#include "trails/config/engines/command.h"
#include "trails/config/engines/gromacs.h"
#include "trails/config/engines/openmm.h"

// NOLINTBEGIN(cppcoreguidelines-macro-usage): the list is expanded into members and types.
#define TRAILS_ENGINES(X)                      \
  X(builtin, BuiltinEngineConfig, BuiltinSpec) \
  X(openmm, OpenMMEngineConfig, OpenMMSpec)    \
  X(gromacs, GromacsEngineConfig, GromacsSpec) \
  X(amber, AmberKeys, AmberSpec)               \
  X(command, CommandKeys, CommandSpec)
// NOLINTEND(cppcoreguidelines-macro-usage)
