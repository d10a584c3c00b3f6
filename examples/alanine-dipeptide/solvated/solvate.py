#!/usr/bin/python3
"""Solvated alanine dipeptide for realistic per-walker cost: ACE-ALA-NME from
../../../tests/data/structures/alanine-dipeptide.pdb, hydrogens kept, TIP3P water with 1.0 nm
padding (OpenMM Modeller.addSolvent), amber14 + TIP3P. Writes solvated.pdb (with CRYST1) here;
then prepare_openmm.py (the same step a campaign runs) turns it into system.xml.
Usage: /usr/bin/python3 solvate.py
"""
import os
from openmm import app, unit

here = os.path.dirname(os.path.abspath(__file__))
src = os.path.join(here, "..", "..", "..", "tests", "data", "structures", "alanine-dipeptide.pdb")
pdb = app.PDBFile(src)
ff = app.ForceField("amber14-all.xml", "amber14/tip3p.xml")
modeller = app.Modeller(pdb.topology, pdb.positions)
modeller.addSolvent(ff, model="tip3p", padding=1.0 * unit.nanometer)
with open(os.path.join(here, "solvated.pdb"), "w") as f:
    app.PDBFile.writeFile(modeller.topology, modeller.positions, f)
print(modeller.topology.getNumAtoms(), "atoms")
