"""PathGennie projection and convergence functions for the ion pair. Both take the coordinates
in Å, shape (n_atoms, 3), as PathGennie passes them; `box` is the cubic box edge in Å (the
distance is the minimum-image one, as Trails' own `distance` CV)."""
import numpy as np


def na_cl_distance(coords, box, atoms=(0, 1)):
    """The Na-Cl distance in nm (one CV)."""
    d = coords[atoms[1]] - coords[atoms[0]]
    d -= box * np.round(d / box)
    return [np.sqrt(np.dot(d, d)) / 10.0]


def separated(coords, box, cutoff):
    """Converged when the ions are at least `cutoff` nm apart."""
    return bool(na_cl_distance(coords, box)[0] >= cutoff)
