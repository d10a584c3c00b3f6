# Reference answers from MDAnalysis and mdtraj for tests/structure (run with /usr/bin/python3).
#   pyref.py select STRUCTURE SELECTIONS_FILE  -> JSON list: MDAnalysis indices per selection
#   pyref.py read STRUCTURE...                 -> JSON list, per file {mdanalysis: {...}, mdtraj: {...}} with
#       positions (Å, frames × atoms × 3), box (a b c alpha beta gamma per frame, Å/deg),
#       names, resnames, resids, elements
import json
import sys
import warnings

warnings.filterwarnings("ignore")


def select(structure, selections_file):
    import MDAnalysis as mda
    u = mda.Universe(structure)
    out = []
    with open(selections_file) as f:
        for line in f:
            line = line.rstrip("\n")
            if line:
                out.append([int(i) for i in u.select_atoms(line).indices])
    print(json.dumps(out))


def read(structure):
    import MDAnalysis as mda
    import mdtraj
    u = mda.Universe(structure)
    frames, boxes = [], []
    for ts in u.trajectory:
        frames.append(u.atoms.positions.astype(float).tolist())
        boxes.append(None if ts.dimensions is None else [float(v) for v in ts.dimensions])
    mda_out = {
        "positions": frames, "box": boxes, "names": list(u.atoms.names),
        "resnames": list(u.atoms.resnames), "resids": [int(r) for r in u.atoms.resids],
        "elements": list(u.atoms.elements) if hasattr(u.atoms, "elements") else [],
    }
    # mdtraj renames atoms to its own standard names unless told not to (GRO: always).
    if structure.endswith(".pdb"):
        t = mdtraj.load_pdb(structure, standard_names=False)
    else:
        t = mdtraj.load(structure)
    md_boxes = []
    for k in range(t.n_frames):
        if t.unitcell_lengths is None:
            md_boxes.append(None)
        else:
            md_boxes.append([float(v) * 10 for v in t.unitcell_lengths[k]] +
                            [float(v) for v in t.unitcell_angles[k]])
    atoms = list(t.topology.atoms)
    md_out = {
        "positions": (t.xyz * 10).astype(float).tolist(), "box": md_boxes,
        "names": [a.name for a in atoms], "resnames": [a.residue.name for a in atoms],
        "resids": [a.residue.resSeq for a in atoms],
        "elements": [a.element.symbol if a.element is not None else "" for a in atoms],
    }
    return {"mdanalysis": mda_out, "mdtraj": md_out}


if __name__ == "__main__":
    if sys.argv[1] == "select":
        select(sys.argv[2], sys.argv[3])
    else:
        print(json.dumps([read(path) for path in sys.argv[2:]]))
