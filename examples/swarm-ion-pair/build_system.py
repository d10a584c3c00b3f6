#!/usr/bin/env python3
"""Build examples/swarm-ion-pair/ion-pair.pdb: a Na+-Cl- contact ion pair in a small TIP3P box.

Run once with Debian's OpenMM (`/usr/bin/python3 build_system.py`); the PDB it writes is
committed, so the example does not need this script. Steps: the two ions 0.28 nm apart (the
contact distance of the amber14/Joung-Cheatham ions in TIP3P), a cubic water box of EDGE nm
(Modeller.addSolvent, amber14 + TIP3P, no extra ions: the pair is neutral), then an energy
minimisation with the ion-ion distance held by a harmonic restraint so the pair stays in contact.
"""
import sys

from openmm import CustomBondForce, LangevinMiddleIntegrator, Platform, Vec3, app, unit

EDGE = 2.5  # nm: PME's 1.0 nm cutoff needs an edge above 2 nm
CONTACT = 0.28  # nm
OUT = sys.argv[1] if len(sys.argv) > 1 else "ion-pair.pdb"

top = app.Topology()
chain = top.addChain()
for name, element in (("NA", app.element.sodium), ("CL", app.element.chlorine)):
    residue = top.addResidue(name, chain)
    top.addAtom(name, element, residue)
positions = [Vec3(0.0, 0.0, 0.0), Vec3(CONTACT, 0.0, 0.0)] * unit.nanometer

ff = app.ForceField("amber14-all.xml", "amber14/tip3p.xml")
modeller = app.Modeller(top, positions)
modeller.addSolvent(ff, model="tip3p", boxSize=Vec3(EDGE, EDGE, EDGE) * unit.nanometer, neutralize=False)

system = ff.createSystem(modeller.topology, nonbondedMethod=app.PME, nonbondedCutoff=1.0 * unit.nanometer,
                         constraints=app.HBonds, rigidWater=True)
hold = CustomBondForce("0.5*k*(r-r0)^2")
hold.addGlobalParameter("k", 50000.0)
hold.addGlobalParameter("r0", CONTACT)
hold.addBond(0, 1, [])
system.addForce(hold)
integrator = LangevinMiddleIntegrator(300 * unit.kelvin, 1 / unit.picosecond, 0.002 * unit.picoseconds)
simulation = app.Simulation(modeller.topology, system, integrator, Platform.getPlatformByName("CPU"))
simulation.context.setPositions(modeller.positions)
simulation.minimizeEnergy(maxIterations=2000)
state = simulation.context.getState(getPositions=True, enforcePeriodicBox=True)
with open(OUT, "w") as f:
    app.PDBFile.writeFile(modeller.topology, state.getPositions(), f)
waters = sum(1 for r in modeller.topology.residues() if r.name == "HOH")
print(f"{OUT}: {modeller.topology.getNumAtoms()} atoms, {waters} waters, box {EDGE} nm")
