"""extract_cvs for the alanine-dipeptide example (Trails-MD's system.project_file contract): the
backbone dihedrals phi and psi of the alanine residue, in radians, one row per frame of the
trajectories in the order given. top_file is the topology the trajectories are read with
(system.trajectory_topology_file when set, else system.top_file)."""
import mdtraj as md
import numpy as np

# Optional for Trails (Trails-MD ignores them): the columns' names and units for the pictures
# and `trails export --cv-names` (docs/cvs.md, "Naming the columns").
CV_NAMES = ["phi", "psi"]
CV_UNITS = ["rad", "rad"]


def extract_cvs(trajectories, top_file, conf_file):
    traj = md.load(list(trajectories), top=top_file or conf_file)
    _, phi = md.compute_phi(traj)
    _, psi = md.compute_psi(traj)
    return np.column_stack([phi[:, 0], psi[:, 0]]).astype(np.float64)
