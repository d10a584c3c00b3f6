#!/usr/bin/python3
"""Call a Trails-MD project file's extract_cvs for Trails (system.project_file).

Usage: run_project_file.py REQUEST.json

REQUEST.json holds:
  mode         "check": import the module and find a callable extract_cvs (nothing else)
               "run":   also call it and write its result
  module       path of the user's Python file
  trajectories list of trajectory paths, one per surviving walker in walker order ("run")
  top_file     system.top_file as a string, or null when it is not set
  conf_file    system.conf_file as a string, or null
  rows         expected number of rows: the frames of all trajectories together ("run")
  columns      expected number of columns: len(n_bins), or null for any number >= 1 (a learned
               space, where these CVs are for evaluation only: the start-structure probe) ("run")
  evaluation_only  true with a learned space_mode (changes the wording of a column mismatch)
  output       the .npy to write: a C-ordered little-endian float64 array rows x columns ("run")
  error        where to write a JSON problem report {"message", "traceback"} on failure
  columns_output  optional ("run"): where to write {"cv_names": [...], "cv_units": [...]} when the
               module defines CV_NAMES and/or CV_UNITS (one string per column; docs/cvs.md)

extract_cvs is called as Trails-MD calls it: extract_cvs(trajectories, top_file, conf_file), the
first argument a list of str. The module is imported from its path with its own directory first
on sys.path, so helper modules next to it import too. Two optional module attributes name the
columns for Trails' pictures and exports: CV_NAMES (e.g. ["phi", "psi"]) and CV_UNITS (e.g.
["rad", "rad"]); Trails-MD ignores them, so a project file that defines them still runs there.

Exit status: 0 success; 3 a problem with the user's module or its result (report in `error`);
anything else: this script itself failed (its traceback on stderr).
"""
import importlib.util
import json
import os
import sys
import traceback

TRACEBACK_LINES = 12


class ProjectFileProblem(Exception):
    def __init__(self, message, tb=""):
        super().__init__(message)
        self.message = message
        self.tb = tb


def tail_of_traceback(exc):
    # The user's frames only: skip this script's and importlib's own.
    tb = exc.__traceback__
    while tb is not None and (tb.tb_frame.f_code.co_filename == __file__ or
                              tb.tb_frame.f_code.co_filename.startswith("<frozen")):
        tb = tb.tb_next
    lines = "".join(traceback.format_exception(type(exc), exc, tb)).splitlines()
    return "\n".join(lines[-TRACEBACK_LINES:])


def import_module(path, name="trails_project_file"):
    """The user's module at `path`, imported with its directory first on sys.path (it may import
    its neighbours, as PathGennie's system.py does)."""
    if not os.path.isfile(path):
        raise ProjectFileProblem(f"{path}: no such file")
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ProjectFileProblem(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except BaseException as e:  # SyntaxError, ImportError, SystemExit at import time, ...
        raise ProjectFileProblem(
            f"{path}: importing the module failed: {type(e).__name__}: {e}", tail_of_traceback(e))
    return module


COLUMN_ATTRIBUTES = ("CV_NAMES", "CV_UNITS")


def column_labels(path, module):
    # CV_NAMES / CV_UNITS: optional lists of non-empty strings, one per column (checked in run).
    labels = {}
    for attribute in COLUMN_ATTRIBUTES:
        value = getattr(module, attribute, None)
        if value is None:
            continue
        if (not isinstance(value, (list, tuple)) or not value or
                not all(isinstance(v, str) and v.strip() for v in value)):
            raise ProjectFileProblem(
                f"{path}: {attribute} = {value!r:.60} must be a list of non-empty strings, one "
                "per column extract_cvs returns (or leave it out)")
        labels[attribute.lower()] = [str(v) for v in value]
    return labels


def load_extract_cvs(path):
    """Imports the module: (extract_cvs, its column labels {"cv_names"?, "cv_units"?})."""
    module = import_module(path)
    fn = getattr(module, "extract_cvs", None)
    if fn is None:
        raise ProjectFileProblem(
            f"{path}: defines no extract_cvs; define "
            "extract_cvs(trajectories, top_file, conf_file) returning an (n_frames, n_cv) array")
    if not callable(fn):
        raise ProjectFileProblem(f"{path}: extract_cvs = {fn!r:.60} is not callable; define it as "
                                 "a function of (trajectories, top_file, conf_file)")
    return fn, column_labels(path, module)


def run(request):
    import numpy as np

    path = request["module"]
    fn, labels = load_extract_cvs(path)
    if request["mode"] == "check":
        return
    trajectories = [str(t) for t in request["trajectories"]]
    try:
        result = fn(trajectories, request["top_file"], request["conf_file"])
    except BaseException as e:
        raise ProjectFileProblem(
            f"{path}: extract_cvs raised {type(e).__name__}: {e}", tail_of_traceback(e))
    try:
        cvs = np.asarray(result, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise ProjectFileProblem(
            f"{path}: extract_cvs returned a {type(result).__name__} that is not a numeric "
            f"array: {e}")
    rows = int(request["rows"])
    columns = None if request["columns"] is None else int(request["columns"])
    if cvs.ndim != 2:
        hint = " (reshape a single CV with .reshape(-1, 1))" if cvs.ndim == 1 else ""
        raise ProjectFileProblem(
            f"{path}: extract_cvs returned an array of shape {cvs.shape}; it must be 2-D, "
            f"(n_frames, n_cv) = ({rows}, {columns if columns is not None else 'n_cv'}){hint}")
    if cvs.shape[0] != rows:
        raise ProjectFileProblem(
            f"{path}: extract_cvs returned {cvs.shape[0]} rows for {rows} frames in "
            f"{len(trajectories)} trajectories; it must return one row per frame, trajectories "
            "in the order given")
    if columns is None and cvs.shape[1] < 1:
        raise ProjectFileProblem(f"{path}: extract_cvs returned no CV column")
    if columns is not None and cvs.shape[1] != columns:
        if request.get("evaluation_only"):
            raise ProjectFileProblem(
                f"{path}: extract_cvs returned {cvs.shape[1]} CV columns but {columns} for the "
                "start structure; with a learned space_mode it must return the same columns "
                "every time")
        raise ProjectFileProblem(
            f"{path}: extract_cvs returned {cvs.shape[1]} CV columns but n_bins has {columns} "
            "entries; give n_bins, min_values and max_values one entry per CV column")
    bad = ~np.isfinite(cvs)
    # At run time Trails fails the walkers with non-finite CVs itself (keep_non_finite); the
    # start-structure probe refuses them.
    if bad.any() and not request.get("keep_non_finite"):
        r, c = (int(i) for i in np.argwhere(bad)[0])
        raise ProjectFileProblem(
            f"{path}: extract_cvs returned {int(bad.sum())} non-finite values (first: "
            f"{cvs[r, c]} at row {r}, column {c}); every CV value must be a finite number")
    for key, values in labels.items():
        if len(values) != cvs.shape[1]:
            raise ProjectFileProblem(
                f"{path}: {key.upper()} has {len(values)} entries but extract_cvs returned "
                f"{cvs.shape[1]} columns; give one entry per column")
    tmp = request["output"] + ".tmp"
    with open(tmp, "wb") as f:
        np.save(f, np.ascontiguousarray(cvs, dtype="<f8"))
    os.replace(tmp, request["output"])
    if labels and request.get("columns_output"):
        with open(request["columns_output"], "w") as f:
            json.dump(labels, f)


def main():
    with open(sys.argv[1]) as f:
        request = json.load(f)
    try:
        run(request)
    except ProjectFileProblem as p:
        with open(request["error"], "w") as f:
            json.dump({"message": p.message, "traceback": p.tb}, f)
        sys.exit(3)


if __name__ == "__main__":
    main()
