#!/usr/bin/python3
"""Writes alanine-dipeptide-solvated.pdb: ../alanine-dipeptide.pdb in a TIP3P water box
(OpenMM Modeller.addSolvent, amber14 + TIP3P, 1.0 nm padding, no ions: the peptide is neutral).
Run with /usr/bin/python3 (Debian's python3-simtk); the result is committed next to this script."""
import os
from simtk.openmm import app, unit

here = os.path.dirname(os.path.abspath(__file__))
pdb = app.PDBFile(os.path.join(here, "..", "alanine-dipeptide.pdb"))
ff = app.ForceField("amber14-all.xml", "amber14/tip3p.xml")
modeller = app.Modeller(pdb.topology, pdb.positions)
modeller.addSolvent(ff, model="tip3p", padding=1.0 * unit.nanometer)
with open(os.path.join(here, "alanine-dipeptide-solvated.pdb"), "w") as out:
    app.PDBFile.writeFile(modeller.topology, modeller.positions, out, keepIds=True)
print(modeller.topology.getNumAtoms(), "atoms,", modeller.topology.getUnitCellDimensions())
