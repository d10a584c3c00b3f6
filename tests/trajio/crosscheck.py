"""Cross-checks Trails' trajectory files against mdtraj and MDAnalysis (run by test_trajio).

  crosscheck.py check FILE REF    both tools read FILE; compare with the reference text REF
  crosscheck.py make DIR          both tools write random trajectories + references into DIR

Reference text: "n_atoms n_frames", then per frame one line
"time_ps step has_box a_nm b_nm c_nm alpha beta gamma" followed by n_atoms lines "x y z" (nm).
Exit status 0 only if everything matched; messages on stderr say what differed.
"""
import os
import sys
import warnings

import numpy as np

warnings.simplefilter("ignore")
import mdtraj  # noqa: E402
import MDAnalysis  # noqa: E402
from MDAnalysis.coordinates.memory import MemoryReader  # noqa: E402


def read_ref(path):
    with open(path) as f:
        n_atoms, n_frames = map(int, f.readline().split())
        frames = []
        for _ in range(n_frames):
            head = f.readline().split()
            xyz = np.array([[float(v) for v in f.readline().split()] for _ in range(n_atoms)])
            frames.append(dict(time=float(head[0]), step=int(head[1]), has_box=head[2] == "1",
                               cell=np.array([float(v) for v in head[3:9]]), xyz=xyz))
    return n_atoms, frames


def write_ref(path, xyz_nm, times, steps, cells):
    with open(path, "w") as f:
        f.write(f"{xyz_nm.shape[1]} {xyz_nm.shape[0]}\n")
        for k in range(xyz_nm.shape[0]):
            c = cells[k] if cells is not None else np.zeros(6)
            f.write(f"{times[k]!r} {steps[k]} {0 if cells is None else 1} "
                    + " ".join(repr(float(v)) for v in c) + "\n")
            for x in xyz_nm[k]:
                f.write(" ".join(repr(float(v)) for v in x) + "\n")


def tolerance(path):
    return 0.0011 if path.endswith(".xtc") else 2e-6  # nm: XTC precision 1000, DCD float in Å


def compare(tool, path, ref, xyz_nm, cells, times=None, steps=None):
    n_atoms, frames = ref
    ok = True
    if xyz_nm.shape != (len(frames), n_atoms, 3):
        print(f"{tool}: shape {xyz_nm.shape}, expected {(len(frames), n_atoms, 3)}", file=sys.stderr)
        return False
    tol = tolerance(path)
    for k, fr in enumerate(frames):
        err = np.max(np.abs(xyz_nm[k] - fr["xyz"]))
        if err > tol + 1e-6 * np.max(np.abs(fr["xyz"])):
            print(f"{tool}: frame {k} coordinates differ by {err} nm", file=sys.stderr)
            ok = False
        if fr["has_box"]:
            c = cells[k]
            if np.max(np.abs(c[:3] - fr["cell"][:3])) > 1e-5 or np.max(np.abs(c[3:] - fr["cell"][3:])) > 1e-3:
                print(f"{tool}: frame {k} cell {c}, expected {fr['cell']}", file=sys.stderr)
                ok = False
        if times is not None and abs(times[k] - fr["time"]) > 1e-4 * max(1.0, abs(fr["time"])):
            print(f"{tool}: frame {k} time {times[k]}, expected {fr['time']}", file=sys.stderr)
            ok = False
        if steps is not None and steps[k] != fr["step"]:
            print(f"{tool}: frame {k} step {steps[k]}, expected {fr['step']}", file=sys.stderr)
            ok = False
    return ok


def check(path, ref_path):
    ref = read_ref(ref_path)
    ok = True
    if path.endswith(".xtc"):
        with mdtraj.formats.XTCTrajectoryFile(path) as f:
            xyz, time, step, box = f.read()
        lengths = np.linalg.norm(box, axis=2)
        a, b, c = box[:, 0], box[:, 1], box[:, 2]
        ang = lambda u, v: np.degrees(np.arccos(np.sum(u * v, axis=1) / np.linalg.norm(u, axis=1) / np.linalg.norm(v, axis=1)))  # noqa: E731
        cells = np.column_stack([lengths, ang(b, c), ang(a, c), ang(a, b)])
        ok &= compare("mdtraj", path, ref, xyz.astype(float), cells, time, step)
    else:
        with mdtraj.formats.DCDTrajectoryFile(path) as f:
            xyz, lengths, angles = f.read()
        cells = None if lengths is None else np.column_stack([lengths / 10.0, angles])
        ok &= compare("mdtraj", path, ref, xyz.astype(float) / 10.0, cells)
    u = MDAnalysis.Universe.empty(ref[0], trajectory=False)
    u.load_new(path)
    xyz, cells, times, steps = [], [], [], []
    for ts in u.trajectory:
        xyz.append(ts.positions.astype(float) / 10.0)
        d = ts.dimensions if ts.dimensions is not None else np.zeros(6)
        cells.append(np.concatenate([d[:3] / 10.0, d[3:]]))
        times.append(ts.time)
        steps.append(ts.data.get("step", None))
    xtc = path.endswith(".xtc")
    # MDAnalysis derives DCD times from ISTART, NSAVC and DELTA; its DCD "step" is a frame count.
    ok &= compare("MDAnalysis", path, ref, np.array(xyz), np.array(cells), times,
                  steps if xtc else None)
    return ok


def make(out):
    rng = np.random.default_rng(20261202)
    n_atoms, n_frames = 23, 5
    xyz = rng.uniform(0.0, 4.0, size=(n_frames, n_atoms, 3))
    cells = np.array([[4.1 + 0.01 * k, 4.3, 4.7, 80.0, 95.0, 110.0] for k in range(n_frames)])
    times = [2.0 * k for k in range(n_frames)]
    steps = [1000 * k for k in range(n_frames)]
    for ext in ("xtc", "dcd"):
        # mdtraj rounds XTC to its precision; reference is the unrounded data (tolerance covers it)
        path = os.path.join(out, f"mdtraj.{ext}")
        if ext == "xtc":
            vec = np.array([mdtraj.utils.lengths_and_angles_to_box_vectors(*c) for c in cells])
            vec = np.transpose(np.array(vec), (0, 1, 2))
            box = np.stack([np.stack([vec[k][0], vec[k][1], vec[k][2]]) for k in range(n_frames)])
            with mdtraj.formats.XTCTrajectoryFile(path, "w") as f:
                f.write(xyz.astype(np.float32), time=np.array(times, dtype=np.float32),
                        step=np.array(steps, dtype=np.int32), box=box.astype(np.float32))
        else:
            with mdtraj.formats.DCDTrajectoryFile(path, "w") as f:
                f.write(xyz * 10.0, cell_lengths=cells[:, :3] * 10.0, cell_angles=cells[:, 3:])
        write_ref(os.path.join(out, f"mdtraj.{ext}.ref"), xyz, times, steps, cells)

        # MDAnalysis's writers take time from the reader's dt and step from the frame index.
        path = os.path.join(out, f"mda.{ext}")
        u = MDAnalysis.Universe.empty(n_atoms, trajectory=False)
        u.load_new((xyz * 10.0).astype(np.float32), format=MemoryReader, dt=2.0,
                   dimensions=np.column_stack([cells[:, :3] * 10.0, cells[:, 3:]]))
        with MDAnalysis.Writer(path, n_atoms) as w:
            for _ in u.trajectory:
                w.write(u.atoms)
        write_ref(os.path.join(out, f"mda.{ext}.ref"), xyz, times, list(range(n_frames)), cells)
    return True


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "check":
        sys.exit(0 if check(sys.argv[2], sys.argv[3]) else 1)
    if len(sys.argv) == 3 and sys.argv[1] == "make":
        sys.exit(0 if make(sys.argv[2]) else 1)
    print(__doc__, file=sys.stderr)
    sys.exit(2)
