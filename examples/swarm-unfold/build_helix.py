#!/usr/bin/env python3
"""Build examples/swarm-unfold/helix.pdb: deca-alanine (Ala10) as an ideal right-handed alpha helix.

Run once with Debian's OpenMM (`/usr/bin/python3 build_helix.py`); the PDB it writes is committed,
so the example does not need this script.

1. Heavy atoms from internal coordinates (NeRF: each atom from the three before it, a bond
   length, a bond angle and a torsion): backbone phi = -57 deg, psi = -47 deg, omega = 180 deg,
   Engh-Huber bond lengths and angles, carbonyl O trans to the next N, CB on the L side of CA,
   and a C-terminal OXT.
2. Termini are left charged (NH3+ and COO-, no caps): Modeller.addHydrogens with amber14 adds the
   hydrogens at pH 7, including H1/H2/H3 on the first residue.
3. 500 steps of energy minimisation in amber14 + GBn2 implicit solvent (the example's force
   field) to relax the ideal geometry and the added hydrogens; the minimised helix is both the
   start structure and the native reference of the Q collective variable.
"""
import math
import os
import sys

import numpy as np
from openmm import LangevinMiddleIntegrator, Platform, app, unit

N_RES = 10
PHI, PSI, OMEGA = -57.0, -47.0, 180.0
# Bond lengths (angstrom) and angles (degrees).
B_N_CA, B_CA_C, B_C_N, B_C_O, B_CA_CB, B_C_OXT = 1.458, 1.525, 1.329, 1.231, 1.530, 1.250
A_N_CA_C, A_CA_C_N, A_C_N_CA, A_CA_C_O, A_N_CA_CB, A_CA_C_OXT = 111.2, 116.2, 121.7, 120.5, 110.5, 117.0
# Torsion C-N-CA-CB of an L residue (checked below by the sign of the CA improper).
T_C_N_CA_CB = -122.6
OUT = sys.argv[1] if len(sys.argv) > 1 else "helix.pdb"


def place(a, b, c, bond, angle, torsion):
    """Position of d with |cd| = bond, angle(b, c, d) = angle, torsion(a, b, c, d) = torsion."""
    angle, torsion = math.radians(angle), math.radians(torsion)
    bc = (c - b) / np.linalg.norm(c - b)
    n = np.cross(b - a, bc)
    n /= np.linalg.norm(n)
    m = np.cross(n, bc)
    d2 = np.array([-bond * math.cos(angle), bond * math.sin(angle) * math.cos(torsion),
                   bond * math.sin(angle) * math.sin(torsion)])
    return c + d2[0] * bc + d2[1] * m + d2[2] * n


atoms = []  # (residue number, atom name, element, xyz)
n = np.zeros(3)
ca = np.array([B_N_CA, 0.0, 0.0])
t = math.radians(180.0 - A_N_CA_C)
c = ca + B_CA_C * np.array([math.cos(t), math.sin(t), 0.0])
for i in range(1, N_RES + 1):
    cb = place(c, n, ca, B_CA_CB, A_N_CA_CB, T_C_N_CA_CB)
    improper = np.dot(np.cross(n - ca, c - ca), cb - ca)
    assert improper > 0, "CB on the D side"  # L-alanine: (N-CA) x (C-CA) . (CB-CA) > 0
    o = place(n, ca, c, B_C_O, A_CA_C_O, PSI + 180.0)
    atoms += [(i, "N", "N", n), (i, "CA", "C", ca), (i, "C", "C", c), (i, "O", "O", o), (i, "CB", "C", cb)]
    if i == N_RES:
        atoms.append((i, "OXT", "O", place(n, ca, c, B_C_OXT, A_CA_C_OXT, PSI)))
        break
    n_next = place(n, ca, c, B_C_N, A_CA_C_N, PSI)
    ca_next = place(ca, c, n_next, B_N_CA, A_C_N_CA, OMEGA)
    c_next = place(c, n_next, ca_next, B_CA_C, A_N_CA_C, PHI)
    n, ca, c = n_next, ca_next, c_next

heavy = "heavy.tmp.pdb"
with open(heavy, "w") as f:
    for k, (res, name, element, xyz) in enumerate(atoms, start=1):
        f.write(f"ATOM  {k:5d} {name:<4s} ALA A{res:4d}    {xyz[0]:8.3f}{xyz[1]:8.3f}{xyz[2]:8.3f}"
                f"  1.00  0.00          {element:>2s}\n")
    f.write("TER\nEND\n")

ff = app.ForceField("amber14-all.xml", "implicit/gbn2.xml")
pdb = app.PDBFile(heavy)
modeller = app.Modeller(pdb.topology, pdb.positions)
modeller.addHydrogens(ff, pH=7.0)
system = ff.createSystem(modeller.topology, nonbondedMethod=app.NoCutoff, constraints=app.HBonds)
integrator = LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, 0.002 * unit.picoseconds)
simulation = app.Simulation(modeller.topology, system, integrator, Platform.getPlatformByName("CPU"))
simulation.context.setPositions(modeller.positions)
simulation.minimizeEnergy(maxIterations=500)
with open(OUT, "w") as f:
    app.PDBFile.writeFile(modeller.topology, simulation.context.getState(getPositions=True).getPositions(), f)
os.remove(heavy)
print(f"{OUT}: Ala{N_RES}, {modeller.topology.getNumAtoms()} atoms")
