"""make_system for the alanine-dipeptide example (Trails-MD's system.system_file contract):
called with the topology of system.top_file (here a PDB, which holds no force field) and the
engine's temperature and time step; returns the System and its integrator. Vacuum, Amber14,
hydrogen-bond constraints."""
import openmm
from openmm import app, unit


def make_system(topology, temp=300.0, dt=0.002):
    forcefield = app.ForceField("amber14-all.xml")
    system = forcefield.createSystem(topology, nonbondedMethod=app.NoCutoff,
                                     constraints=app.HBonds)
    integrator = openmm.LangevinMiddleIntegrator(temp * unit.kelvin, 1.0 / unit.picosecond,
                                                 dt * unit.picoseconds)
    return system, integrator
