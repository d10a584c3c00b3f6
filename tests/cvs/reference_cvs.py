#!/usr/bin/python3
"""Reference CV values from mdtraj and MDAnalysis for tests/cvs (called by the C++ tests).

    /usr/bin/python3 reference_cvs.py REQUEST.json RESPONSE.json

REQUEST: {"items": [{"id", "fn", "pdb", "frames", "box"?, ...}, ...]}; frames is a text file of
n_frames × n_atoms rows (x y z, nm), box a 3×3 list (nm) applied to every frame. RESPONSE:
{id: result}. Only the library named by fn computes the value; numpy does bookkeeping only.
"""
import json
import sys
from itertools import combinations

import numpy as np

_mdtraj = None


def md():
    global _mdtraj
    if _mdtraj is None:
        import mdtraj
        _mdtraj = mdtraj
    return _mdtraj


def load_traj(item):
    m = md()
    top = m.load(item["pdb"])
    xyz = np.loadtxt(item["frames"]).reshape(-1, top.n_atoms, 3)
    traj = m.Trajectory(xyz, top.topology)
    if "box" in item:
        traj.unitcell_vectors = np.repeat(np.array(item["box"])[None], len(xyz), axis=0)
    return traj, top


def mda_universe(item):
    import MDAnalysis as mda
    u = mda.Universe(item["pdb"])
    xyz = np.loadtxt(item["frames"]).reshape(-1, len(u.atoms), 3) * 10.0  # nm → Å
    return u, xyz


def compute(item):
    fn = item["fn"]
    if fn == "distances":
        t, _ = load_traj(item)
        return md().compute_distances(t, item["pairs"], periodic=item["periodic"]).tolist()
    if fn == "angles":
        t, _ = load_traj(item)
        return md().compute_angles(t, item["triples"], periodic=item["periodic"]).tolist()
    if fn == "dihedrals":
        t, _ = load_traj(item)
        return md().compute_dihedrals(t, item["quads"], periodic=item["periodic"]).tolist()
    if fn in ("phi", "psi"):
        t, _ = load_traj(item)
        idx, ang = (md().compute_phi if fn == "phi" else md().compute_psi)(t)
        return {"atoms": idx.tolist(), "angles": ang.tolist()}
    if fn == "rmsd":
        t, ref = load_traj(item)
        return md().rmsd(t, ref, 0, atom_indices=item["atoms"]).tolist()
    if fn == "superpose":  # fit on fit_atoms, report coordinates and RMSD over atoms
        t, ref = load_traj(item)
        t.superpose(ref, 0, atom_indices=item["fit_atoms"])
        a = item["atoms"]
        d = t.xyz[:, a, :].astype(float) - ref.xyz[0, a, :].astype(float)
        return {"rmsd": np.sqrt((d ** 2).sum(axis=2).mean(axis=1)).tolist(),
                "xyz": t.xyz[:, a, :].reshape(len(t), -1).tolist()}
    if fn == "mda_superpose":  # MDAnalysis' double-precision QCP rotation on fit_atoms
        from MDAnalysis.analysis.align import rotation_matrix
        u, xyz = mda_universe(item)
        ref = u.atoms.positions.astype(float)
        fit, a = item["fit_atoms"], item["atoms"]
        rms, out = [], []
        for f in xyz:
            mc, rc = f[fit].mean(axis=0), ref[fit].mean(axis=0)
            rot, _ = rotation_matrix(f[fit] - mc, ref[fit] - rc)
            moved = (f - mc) @ rot.T + rc
            rms.append(np.sqrt(((moved[a] - ref[a]) ** 2).sum(axis=1).mean()) / 10.0)
            out.append((moved[a] / 10.0).reshape(-1).tolist())
        return {"rmsd": rms, "xyz": out}
    if fn == "rg":
        t, _ = load_traj(item)
        return md().compute_rg(t.atom_slice(item["atoms"])).tolist()
    if fn == "q":  # the Best-Hummer-Eaton recipe of the mdtraj documentation
        t, native = load_traj(item)
        beta, lam, cutoff, sep = item["beta"], item["lambda"], item["cutoff"], item["separation"]
        heavy = native.topology.select_atom_indices("heavy")
        pairs = np.array([(i, j) for (i, j) in combinations(heavy, 2)
                          if abs(native.topology.atom(i).residue.index -
                                 native.topology.atom(j).residue.index) > sep])
        d0 = md().compute_distances(native[0], pairs)[0]
        contacts = pairs[d0 < cutoff]
        r = md().compute_distances(t, contacts)
        r0 = md().compute_distances(native[0], contacts)
        q = np.mean(1.0 / (1 + np.exp(beta * (r - lam * r0))), axis=1)
        return {"q": q.tolist(), "n_contacts": int(len(contacts))}
    if fn == "mda_distances":
        from MDAnalysis.lib.distances import calc_bonds
        from MDAnalysis.lib.mdamath import triclinic_box
        u, xyz = mda_universe(item)
        p = np.array(item["pairs"])
        dims = triclinic_box(*(np.array(item["box"]) * 10.0)) if "box" in item else None
        return [(calc_bonds(f[p[:, 0]], f[p[:, 1]], box=dims) / 10.0).tolist() for f in xyz]
    if fn == "mda_dihedrals":
        from MDAnalysis.lib.distances import calc_dihedrals
        from MDAnalysis.lib.mdamath import triclinic_box
        u, xyz = mda_universe(item)
        q = np.array(item["quads"])
        dims = triclinic_box(*(np.array(item["box"]) * 10.0)) if "box" in item else None
        return [calc_dihedrals(*(f[q[:, k]] for k in range(4)), box=dims).tolist() for f in xyz]
    if fn == "mda_rmsd":
        from MDAnalysis.analysis.rms import rmsd
        u, xyz = mda_universe(item)
        a = item["atoms"]
        ref = u.atoms.positions[a].astype(float)
        return [rmsd(f[a], ref, center=True, superposition=True) / 10.0 for f in xyz]
    if fn == "mda_rg":  # mass-weighted, MDAnalysis' own masses
        u, xyz = mda_universe(item)
        out = []
        for f in xyz:
            u.atoms.positions = f
            out.append(u.atoms[item["atoms"]].radius_of_gyration() / 10.0)
        return {"rg": out, "masses": u.atoms.masses.tolist()}
    raise ValueError("unknown fn " + fn)


def main():
    request = json.load(open(sys.argv[1]))
    response = {item["id"]: compute(item) for item in request["items"]}
    json.dump(response, open(sys.argv[2], "w"))


if __name__ == "__main__":
    main()
