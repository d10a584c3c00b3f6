# The OpenMM engine's room (docs/engines.md, "The OpenMM engine"): OpenMM's C++ API
# (trails_openmm_sdk, found in the top CMakeLists.txt) and spdlog, both PRIVATE.
trails_engine(openmm PRIVATE trails_openmm_sdk spdlog::spdlog)
