"""A Trails-MD project file for alanine dipeptide: phi/psi of residue 2 (ALA) in radians, one
row per frame of the trajectories in the order given. mdtraj reads the files and finds the
dihedral atoms; the angles are computed here in float64 (mdtraj's compute_dihedrals works in
float32, ~1e-5 rad). Used by tests/scripts/project_file.sh."""
import json
import os

import mdtraj as md
import numpy as np


def dihedral(xyz, quad):
    p = xyz[:, quad, :].astype(np.float64)
    b1, b2, b3 = p[:, 1] - p[:, 0], p[:, 2] - p[:, 1], p[:, 3] - p[:, 2]
    c1, c2 = np.cross(b2, b3), np.cross(b1, b2)
    y = (b1 * c1).sum(1) * np.linalg.norm(b2, axis=1)
    return np.arctan2(y, (c1 * c2).sum(1))


def extract_cvs(trajectories, top_file, conf_file):
    spy = os.environ.get("TRAILS_TEST_PROJECT_SPY")
    if spy:  # the test records how it was called
        with open(spy, "a") as f:
            f.write(json.dumps({"trajectories": trajectories, "top_file": top_file,
                                "conf_file": conf_file,
                                "frames": [md.load(t, top=conf_file).n_frames for t in trajectories]})
                    + "\n")
    traj = md.load(list(trajectories), top=top_file or conf_file)  # md.load consumes its list
    phi_atoms, _ = md.compute_phi(traj[:1])
    psi_atoms, _ = md.compute_psi(traj[:1])
    return np.column_stack([dihedral(traj.xyz, phi_atoms[0]), dihedral(traj.xyz, psi_atoms[0])])
