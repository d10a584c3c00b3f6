#!/usr/bin/python3
"""The long-lived system.project_file worker: one per campaign (docs/cvs.md, "The worker").

Usage: project_file_worker.py

Reads one JSON request per line on stdin and answers each with one JSON line on stdout, until
stdin closes (Trails exited or was killed), then exits 0. A request is run_project_file.py's
REQUEST.json without "error" (mode "run": module, trajectories, top_file, conf_file, rows,
columns, evaluation_only, output). The user's module is imported once, at its first request,
and its extract_cvs is called for every later one, as Trails-MD calls it in-process.
Mode "call" serves the swarm's PathGennie functions (docs/swarm.md, "From a PathGennie
input.yaml"): {"mode": "call", "module", "function", "kwargs", "kind": "projection" |
"convergence", "frames": [n_frames][n_atoms][3] in Å}; function(coords, **kwargs) is called on
each frame as a float64 (n_atoms, 3) array, and the reply holds "values": one list of floats
per frame (projection: a 1-D result, null for a non-finite component) or one bool per frame
(convergence). Mode "pca_pickle" reads PathGennie's pca_model.pkl: {"mode": "pca_pickle",
"file"}; the reply adds share/trails/pca_pickle.py's arrays (mean, components, ...). Replies:
  {"ok": true}                                          ("values" added in mode "call")
  {"ok": false, "message": "...", "traceback": "..."}   a problem with the module or its result
  {"ok": false, "internal": "..."}                      this script itself failed (its traceback)
File descriptor 1 is kept for the replies only: whatever the module prints (print, C code)
goes to stderr, which Trails collects for its debug log and error messages.

Test hook (tests/scripts/project_file.sh only): TRAILS_TEST_WORKER_PID_FILE appends this
process's id to that file at start; TRAILS_TEST_WORKER_DIE_AFTER=N makes it SIGKILL itself right
after its N-th reply, as an outside `kill -9` between iterations would.
"""
import importlib.util
import json
import os
import signal
import sys
import traceback


def load_one_shot():
    # run_project_file.py next to this file: the same checks and messages as `trails check`.
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "run_project_file.py")
    spec = importlib.util.spec_from_file_location("_trails_run_project_file", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def call_function(one_shot, modules, request):
    """Mode "call": the user's function on every frame; the checks name the function."""
    import numpy as np
    path, name = request["module"], request["function"]
    if path not in modules:
        modules[path] = one_shot.import_module(path, f"trails_swarm_{len(modules)}")
    fn = getattr(modules[path], name, None)
    where = f"{path}: {name}"
    if fn is None or not callable(fn):
        raise one_shot.ProjectFileProblem(
            f"{path}: defines no function {name}(coords, **kwargs)" if fn is None else
            f"{where} = {fn!r:.60} is not callable")
    values = []
    for frame in request["frames"]:
        coords = np.asarray(frame, dtype=np.float64).reshape(-1, 3)
        try:
            result = fn(coords, **request.get("kwargs", {}))
        except BaseException as e:
            raise one_shot.ProjectFileProblem(
                f"{where} raised {type(e).__name__}: {e}", one_shot.tail_of_traceback(e))
        if request["kind"] == "convergence":
            if not isinstance(result, (bool, np.bool_)):
                raise one_shot.ProjectFileProblem(
                    f"{where} returned {type(result).__name__} {result!r:.60}; a convergence "
                    "function must return True or False")
            values.append(bool(result))
            continue
        try:
            row = np.asarray(result, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise one_shot.ProjectFileProblem(f"{where} returned something that is not numbers: {e}")
        if row.ndim > 1 or row.size == 0:
            raise one_shot.ProjectFileProblem(
                f"{where} returned shape {row.shape}; a projection returns one CV vector "
                "(a 1-D sequence of numbers, or one number)")
        # JSON has no NaN: a non-finite component travels as null (NaN again in Trails).
        values.append([float(v) if np.isfinite(v) else None for v in row.reshape(-1)])
    return values


def read_pca_pickle(one_shot, path):
    """Mode "pca_pickle": PathGennie's pca_model.pkl as arrays (share/trails/pca_pickle.py)."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("_trails_pca_pickle",
                                                  os.path.join(here, "pca_pickle.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        return module.read_pca_pickle(path)
    except ValueError as e:
        raise one_shot.ProjectFileProblem(str(e))


def main():
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # the module's output, Python or C, goes to stderr from now on
    sys.stdout = sys.stderr
    if os.environ.get("TRAILS_TEST_WORKER_PID_FILE"):
        with open(os.environ["TRAILS_TEST_WORKER_PID_FILE"], "a") as f:
            f.write(f"{os.getpid()}\n")
    die_after = int(os.environ.get("TRAILS_TEST_WORKER_DIE_AFTER") or 0)
    one_shot = load_one_shot()
    load_extract_cvs = one_shot.load_extract_cvs
    loaded = {}  # module path -> (extract_cvs, column labels), imported once
    modules = {}  # module path -> module, for mode "call"

    def cached_loader(path):
        if path not in loaded:
            loaded[path] = load_extract_cvs(path)
        return loaded[path]

    one_shot.load_extract_cvs = cached_loader  # what one_shot.run calls
    answered = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            if request.get("mode") == "call":
                reply = {"ok": True, "values": call_function(one_shot, modules, request)}
            elif request.get("mode") == "pca_pickle":
                reply = {"ok": True, **read_pca_pickle(one_shot, request["file"])}
            else:
                one_shot.run(request)
                reply = {"ok": True}
        except one_shot.ProjectFileProblem as p:
            reply = {"ok": False, "message": p.message, "traceback": p.tb}
        except Exception:
            reply = {"ok": False, "internal": traceback.format_exc()}
        sys.stderr.flush()
        replies.write(json.dumps(reply) + "\n")
        answered += 1
        if die_after and answered == die_after:
            os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    main()
