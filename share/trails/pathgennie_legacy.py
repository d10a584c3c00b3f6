"""PathGennie's unbind stop rule as a swarm convergence function, for `trails unbind`
(docs/swarm.md, "PathGennie's legacy command line").

unbind.py stopped when the unweighted centroid distance between the pocket CA atoms and the
ligand heavy atoms exceeded 30 A and their closest pair 10 A (after cycle 100, which the
generated configuration says as convergence.min_cycles: 101). As in PathGennie the distances
are plain ones (the worker passes coordinates, not the box).
"""
import numpy as np


def unbound(coords, ca, ligand, com_distance=30.0, min_distance=10.0):
    """True when the ligand has left the pocket: coords (n_atoms, 3) in A; ca and ligand are
    0-based atom indices."""
    pocket = coords[np.asarray(ca, dtype=int)]
    lig = coords[np.asarray(ligand, dtype=int)]
    com = float(np.linalg.norm(pocket.mean(axis=0) - lig.mean(axis=0)))
    closest = float(np.sqrt(((pocket[:, None, :] - lig[None, :, :]) ** 2).sum(axis=2).min()))
    return bool(com > com_distance and closest > min_distance)
