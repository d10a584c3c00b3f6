# Regenerates the committed test structures (no network needed):
#   /usr/bin/python3 tests/data/structures/make_structures.py
# alanine-dipeptide-solvated.pdb: the dipeptide in a 2.4 nm water box with Na+/Cl- (OpenMM
#   Modeller, amber14 + TIP3P), written by OpenMM's PDB writer (CRYST1, element columns).
# alanine-dipeptide-solvated.gro: the same coordinates written by MDAnalysis's GRO writer.
# dipeptide-3models-triclinic.pdb: three models in a triclinic cell, written by MDAnalysis.
import os
import warnings

import numpy as np

warnings.filterwarnings("ignore")
import MDAnalysis as mda
import openmm.app as app
import openmm.unit as unit

here = os.path.dirname(os.path.abspath(__file__))
pdb = app.PDBFile(os.path.join(here, "alanine-dipeptide.pdb"))
ff = app.ForceField("amber14-all.xml", "amber14/tip3p.xml")
modeller = app.Modeller(pdb.topology, pdb.positions)
modeller.addSolvent(ff, boxSize=app.modeller.Vec3(2.4, 2.4, 2.4) * unit.nanometer,
                    ionicStrength=0.5 * unit.molar)
solvated = os.path.join(here, "alanine-dipeptide-solvated.pdb")
with open(solvated, "w") as f:
    app.PDBFile.writeFile(modeller.topology, modeller.positions, f, keepIds=False)

u = mda.Universe(solvated)
u.atoms.write(os.path.join(here, "alanine-dipeptide-solvated.gro"))

d = mda.Universe(os.path.join(here, "alanine-dipeptide.pdb"))
rng = np.random.default_rng(7)
base = d.atoms.positions.copy()
with mda.Writer(os.path.join(here, "dipeptide-3models-triclinic.pdb"), d.atoms.n_atoms,
                multiframe=True) as w:
    for k in range(3):
        d.atoms.positions = base + rng.normal(scale=0.3, size=base.shape) + 1.5 * k
        d.dimensions = [20.0, 22.0, 24.0, 80.0, 95.0, 100.0]  # MDAnalysis writes one CRYST1
        w.write(d.atoms)
