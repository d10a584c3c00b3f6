#!/usr/bin/python3
"""Generates the committed CV test frames (run once; the outputs are committed data).

    /usr/bin/python3 tests/cvs/make_test_frames.py

Writes into tests/data/structures/:
  alanine-dipeptide-frames.txt   20 frames: the PDB (Å → nm), each randomly rotated, translated
                                 and perturbed by Gaussian noise (σ 0.03 nm per coordinate)
  alanine-dipeptide-box-frames.txt  20 frames of the same kind with every atom moved by a random
                                 lattice translation of the skewed box in triclinic-box.txt, so
                                 that the molecule is scattered over periodic images
  triclinic-box.txt              the box: rows a, b, c (nm), reduced form
  villin-headpiece.pdb           protein atoms of OpenMM's app/data/test.pdb (villin N68H), with
                                 element columns, for Q (needs residues > 3 apart)
  villin-frames.txt              8 frames of villin with growing noise (σ 0 … 0.14 nm)
Frame files: plain text, one atom per line (x y z, nm), frames one after the other.
"""
import os
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "data", "structures")
rng = np.random.default_rng(20261202)


def read_pdb_xyz(path):
    xyz = []
    for line in open(path):
        if line.startswith(("ATOM", "HETATM")):
            xyz.append([float(line[30:38]), float(line[38:46]), float(line[46:54])])
    return np.array(xyz) / 10.0  # Å → nm


def random_rotation():
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def perturbed(xyz, sigma):
    c = xyz.mean(axis=0)
    moved = (xyz - c) @ random_rotation().T + c + rng.normal(scale=0.5, size=3)
    return moved + rng.normal(scale=sigma, size=xyz.shape)


def save(name, frames, header):
    np.savetxt(os.path.join(OUT, name), np.concatenate(frames), fmt="%.9f",
               header=header + f"; {len(frames)} frames x {len(frames[0])} atoms, x y z nm")


alad = read_pdb_xyz(os.path.join(OUT, "alanine-dipeptide.pdb"))
save("alanine-dipeptide-frames.txt", [perturbed(alad, 0.03) for _ in range(20)],
     "alanine dipeptide test frames (tests/cvs/make_test_frames.py)")

box = np.array([[1.3, 0.0, 0.0], [0.55, 1.2, 0.0], [-0.45, 0.5, 1.1]])
np.savetxt(os.path.join(OUT, "triclinic-box.txt"), box, fmt="%.6f",
           header="triclinic test box, rows a b c (nm), reduced form")
box_frames = []
for _ in range(20):
    f = perturbed(alad, 0.03)
    shifts = rng.integers(-2, 3, size=(len(f), 3))
    box_frames.append(f + shifts @ box)
save("alanine-dipeptide-box-frames.txt", box_frames,
     "alanine dipeptide scattered over images of triclinic-box.txt (make_test_frames.py)")

lines = [l for l in open("/usr/lib/python3/dist-packages/openmm/app/data/test.pdb")
         if l.startswith("ATOM") and l[17:20].strip() not in ("HOH", "Cl", "Na")]
with open(os.path.join(OUT, "villin-headpiece.pdb"), "w") as out:
    out.write("REMARK   1 VILLIN HEADPIECE N68H, PROTEIN ATOMS OF OPENMM app/data/test.pdb\n")
    for l in lines:
        name = l[12:16].strip()
        element = name.lstrip("0123456789")[0]
        out.write(f"{l[:54].ljust(54)}  1.00  0.00          {element:>2}\n")
    out.write("END\n")
villin = read_pdb_xyz(os.path.join(OUT, "villin-headpiece.pdb"))
save("villin-frames.txt", [perturbed(villin, s) for s in np.linspace(0.0, 0.14, 8)],
     "villin headpiece test frames (make_test_frames.py)")
