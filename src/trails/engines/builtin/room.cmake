# The built-in engine's room (docs/engines.md, "The built-in engine"): analytic potentials
# integrated inside Trails, no other room and no third-party library.
trails_engine(builtin)
