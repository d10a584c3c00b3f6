"""deeptime's side of workload (d) of bench/deeptime_compare (docs/performance.md, "Against
deeptime"), timed on this machine: TICA(lagtime=10, dim=2).fit_fetch(trajs) on the ten
(100000, 50) feat50 trajectories, then the model's transform of every trajectory, as
tests/data/deeptime/REFERENCE-README.md defines them. Run with the project .venv's python
(make bench-deps installs deeptime); it is not a test.
Usage: deeptime_tica.py INPUT_DIR THREADS [REPS=3]
OpenMP, OpenBLAS and MKL get THREADS threads (set before numpy loads; threadpoolctl caps them
too where it is installed). Prints one JSON line: the best of REPS wall and CPU (process) seconds
of the fit, the transform and the two back to back, the BLAS numpy uses, and the versions.
"""
import json
import os
import sys

if len(sys.argv) not in (3, 4):
    print(__doc__, file=sys.stderr)
    sys.exit(2)
THREADS = sys.argv[2]
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[var] = THREADS

import time  # noqa: E402

import numpy as np  # noqa: E402

import deeptime  # noqa: E402
from deeptime.decomposition import TICA  # noqa: E402


def blas_of_numpy():
    try:
        from threadpoolctl import threadpool_info
        return [f"{i.get('internal_api')} {i.get('version')} ({i.get('num_threads')} threads)"
                for i in threadpool_info() if i.get("user_api") == "blas"]
    except ImportError:
        return ["threadpoolctl not installed"]


def limited():
    try:
        from threadpoolctl import threadpool_limits
        return threadpool_limits(int(THREADS))
    except ImportError:
        import contextlib
        return contextlib.nullcontext()


def main():
    reps = int(sys.argv[3]) if len(sys.argv) == 4 else 3
    x = np.load(os.path.join(sys.argv[1], "feat50.npy"))
    trajs = [t for t in x.reshape(10, -1, 50)]
    best = {"fit": [1e300, 1e300], "transform": [1e300, 1e300], "fit+transform": [1e300, 1e300]}
    with limited():
        for _ in range(reps):
            w0, c0 = time.perf_counter(), time.process_time()
            model = TICA(lagtime=10, dim=2).fit_fetch(trajs)
            w1, c1 = time.perf_counter(), time.process_time()
            y = [model.transform(t) for t in trajs]
            w2, c2 = time.perf_counter(), time.process_time()
            assert sum(len(t) for t in y) == x.shape[0] * x.shape[1]
            for key, w, c in (("fit", w1 - w0, c1 - c0), ("transform", w2 - w1, c2 - c1),
                              ("fit+transform", w2 - w0, c2 - c0)):
                best[key] = [min(best[key][0], w), min(best[key][1], c)]
    print(json.dumps({"threads": int(THREADS), "reps": reps,
                      "wall_s": {k: v[0] for k, v in best.items()},
                      "cpu_s": {k: v[1] for k, v in best.items()},
                      "deeptime": deeptime.__version__, "numpy": np.__version__,
                      "blas": blas_of_numpy(), "load": os.getloadavg()}))


if __name__ == "__main__":
    main()
