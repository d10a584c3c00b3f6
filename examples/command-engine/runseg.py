#!/usr/bin/python3
"""A command-engine segment program (docs/engines.md, "The command engine"): overdamped
Brownian dynamics on the Müller–Brown surface with python3 + numpy. Trails runs it once per
walker in a private directory; it reads the task file, integrates, writes the frames after steps
stride, 2*stride, ... and the final state, and exits 0. Its noise comes from numpy's generator
seeded with the walker's seed, so a walker is reproducible, but it is not bitwise the built-in
engine (runseg_builtin.sh is). KT is this example's own parameter (the task's temperature is in
kelvin, for molecular programs)."""
import json
import os
import sys

import numpy as np

KT = 15.0  # reduced units, as examples/muller-brown/config.yaml
A = np.array([-200.0, -100.0, -170.0, 15.0])
a = np.array([-1.0, -1.0, -6.5, 0.7])
b = np.array([0.0, 0.0, 11.0, 0.6])
c = np.array([-10.0, -10.0, -6.5, 0.7])
X0 = np.array([1.0, 0.0, -0.5, -1.0])
Y0 = np.array([0.0, 0.5, 1.5, 1.0])


def gradient(p):
    dx, dy = p[0] - X0, p[1] - Y0
    e = A * np.exp(a * dx * dx + b * dx * dy + c * dy * dy)
    return np.array([np.sum(e * (2 * a * dx + b * dy)), np.sum(e * (b * dx + 2 * c * dy))])


def main():
    task = json.load(open(os.environ["TRAILS_TASK_FILE"]))
    x = np.load(task["start"]["positions"]).reshape(-1).astype(float)
    if x.size != 2:
        sys.exit(f"runseg.py: Müller–Brown is 2-D, the start has {x.size} coordinates")
    dt, steps, stride = task["dt"], task["steps"], task["stride"]
    rng = np.random.default_rng(task["seed"])
    noise = np.sqrt(2.0 * KT * dt)
    frames = []
    for step in range(1, steps + 1):
        x = x - dt * gradient(x) + noise * rng.standard_normal(2)
        if not np.all(np.isfinite(x)):
            sys.exit(f"runseg.py: coordinates became non-finite at step {step}; reduce engine.dt")
        if step % stride == 0:
            frames.append(x.copy())
    out = task["outputs"]
    np.save(out["frames_npy"], np.array(frames).reshape(len(frames), 1, 2))
    np.save(out["final_positions"], x.reshape(1, 2))


if __name__ == "__main__":
    main()
