# The command engine's room (docs/engines.md, "The command engine"): a user's program per
# segment through the external rooms' walker directories.
trails_engine(command DEPS trails_engine_external)
