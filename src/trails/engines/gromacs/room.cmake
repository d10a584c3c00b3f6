# The GROMACS engine's room (docs/engines.md, "The GROMACS engine"): the gmx program per
# walker through the external rooms' walker directories; TPR and TRR through trajio.
trails_engine(gromacs DEPS trails_engine_external trails_trajio)
