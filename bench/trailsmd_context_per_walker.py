"""Trails-MD 1.1's walker pattern, for bench/opencl_rearm.sh: every walker builds a new OpenMM
Context (Trails-MD builds it in a new process; here, charitably, in one process, so only the
Context's cost counts), sets the start positions and fresh velocities, runs its steps with a frame
every `stride` steps read back as positions, and drops the Context. The System is the one Trails
prepared (RUN_DIR/prepared/<digest>/system.xml, prepare.json), the integrator Trails' (Langevin
middle, 1/ps). Runs under /usr/bin/python3 (Debian's python3-openmm 7.7). Prints one JSON line.

usage: trailsmd_context_per_walker.py PREPARED_DIR PLATFORM PRECISION WALKERS STEPS STRIDE
"""
import json
import sys
import time

import openmm


def main():
    prepared, platform, precision = sys.argv[1], sys.argv[2], sys.argv[3]
    walkers, steps, stride = (int(a) for a in sys.argv[4:7])
    with open(f"{prepared}/system.xml") as f:
        system_xml = f.read()
    with open(f"{prepared}/prepare.json") as f:
        flat = json.load(f)["positions"]
    positions = [openmm.Vec3(*flat[i:i + 3]) for i in range(0, len(flat), 3)]
    properties = {"OpenCLPrecision": precision} if platform == "OpenCL" else {}
    if platform == "CUDA":
        properties = {"Precision": precision}
    start = time.perf_counter()
    create_s = 0.0
    for w in range(walkers):
        system = openmm.XmlSerializer.deserialize(system_xml)
        integrator = openmm.LangevinMiddleIntegrator(300.0, 1.0, 0.002)
        integrator.setRandomNumberSeed(1000 + w)
        t0 = time.perf_counter()
        context = openmm.Context(system, integrator, openmm.Platform.getPlatformByName(platform),
                                 properties)
        context.setPositions(positions)
        context.setVelocitiesToTemperature(300.0, 1000 + w)
        create_s += time.perf_counter() - t0
        for _ in range(steps // stride):
            integrator.step(stride)
            context.getState(getPositions=True).getPositions(asNumpy=True)
        del context, integrator
    wall = time.perf_counter() - start
    print(json.dumps({"walkers": walkers, "steps": steps, "wall_s": wall,
                      "startup_per_walker_s": create_s / walkers}))


if __name__ == "__main__":
    main()
