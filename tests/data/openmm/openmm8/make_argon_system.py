"""Writes argon2-system.xml: the two argon atoms of ../argon/argon.gro in a 2.5 nm box with
Lennard-Jones as a CustomNonbondedForce, serialized by OpenMM 8 (its CustomNonbondedForce is a
serialization version OpenMM 7.7 rejects). Run with the OpenMM 8 of `make deps`:
    .venv/bin/python tests/data/openmm/openmm8/make_argon_system.py tests/data/openmm/openmm8
"""
import os
import sys

import openmm

system = openmm.System()
system.setDefaultPeriodicBoxVectors(openmm.Vec3(2.5, 0, 0), openmm.Vec3(0, 2.5, 0),
                                    openmm.Vec3(0, 0, 2.5))
lj = openmm.CustomNonbondedForce("4*epsilon*((sigma/r)^12-(sigma/r)^6); sigma=0.34; epsilon=0.996")
lj.setNonbondedMethod(openmm.CustomNonbondedForce.CutoffPeriodic)
lj.setCutoffDistance(1.0)
for _ in range(2):
    system.addParticle(39.948)
    lj.addParticle([])
system.addForce(lj)
with open(os.path.join(sys.argv[1], "argon2-system.xml"), "w") as f:
    f.write(openmm.XmlSerializer.serialize(system))
