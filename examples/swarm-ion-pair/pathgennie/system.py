"""PathGennie's system.py for the ion pair: builds `simulation`, an openmm.app.Simulation, as
PathGennie's legacy scripts and OpenMM engine expect (docs/swarm.md, "From a PathGennie
input.yaml"). Trails imports it once, in this directory, and takes the Simulation's System and
integrator; the settings equal those Trails uses for `system.forcefield` (docs/engines.md), so
this run is the native example's run (tests/scripts/swarm_pathgennie.sh)."""
from openmm import LangevinMiddleIntegrator, Platform, app, unit

pdb = app.PDBFile("../ion-pair.pdb")
forcefield = app.ForceField("amber14-all.xml", "amber14/tip3p.xml")
system = forcefield.createSystem(pdb.topology, nonbondedMethod=app.PME,
                                 nonbondedCutoff=1.0 * unit.nanometer, ewaldErrorTolerance=5e-4,
                                 constraints=app.HBonds, rigidWater=True,
                                 hydrogenMass=1.5 * unit.amu)
integrator = LangevinMiddleIntegrator(300 * unit.kelvin, 1.0 / unit.picosecond,
                                      0.002 * unit.picoseconds)
simulation = app.Simulation(pdb.topology, system, integrator, Platform.getPlatformByName("Reference"))
simulation.context.setPositions(pdb.positions)
