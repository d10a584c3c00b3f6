"""Read a Trails run directory from Python (docs/python.md).

    from trails_run import Run
    run = Run("runs/alanine")
    run.iterations            # committed iterations, e.g. [0, 1, 2]
    run.cv_names              # the run's CV column names (tica_0, vampnet_0, ... in a learned space)
    cvs = run.cvs()           # record array: iteration, walker, frame, one field per CV
    xyz = run.frames(1, 2)    # positions of walker 2 of iteration 1, (n_frames, n_atoms, dim)

The reader follows the rules of `trails status` (docs/file-formats.md, docs/reliability.md): it
never writes (the ledger is opened with SQLite's mode=ro, shards with h5py's "r"), it sees only
committed iterations (the ledger's `iterations` rows, read in one snapshot when the Run is made;
shards being written, `*.tmp` and crash leftovers are never looked at), and it verifies a shard's
size and CRC-32 against the ledger before reading positions from it. Every problem is a
TrailsRunError naming the path and what to do.

Needs numpy, h5py (Debian python3-numpy, python3-h5py) and the standard library; mdtraj only for
Run.to_mdtraj().
"""

import json
import os
import sqlite3
import urllib.parse
import zlib

import numpy as np

__all__ = ["Run", "TrailsRunError", "SCHEMA_VERSION", "load_cv_points", "load_msm_series",
           "load_latest_msm", "load_run_meta", "load_flux_history", "shard_positions"]

SCHEMA_VERSION = 2  # the store schema this reader understands (docs/file-formats.md)
_APPLICATION_ID = 0x54524C53  # "TRLS"
_APPLICATION = "trails-run-store"


class TrailsRunError(Exception):
    """A run directory that cannot be read as asked (the message names the path)."""


class _Segment:
    """One ok walker of one iteration: its frames, shard rows and walker-local clock."""

    __slots__ = ("iteration", "walker", "n_frames", "first_row", "cv_row", "parent",
                 "stride", "dt", "start_time", "start_step")

    def time(self, frame):
        # The same operations as trails export (src/trails/report/export/export_segments.h), so the
        # values are bitwise the same.
        return self.start_time + float((frame + 1) * self.stride) * self.dt

    def step(self, frame):
        return self.start_step + (frame + 1) * self.stride


def shard_positions(h5):
    """Every stored frame of an open shard (an h5py.File) as float64, shape (rows, atoms,
    spatial_dim): the float64/float32 values, or a quantised shard's grid values."""
    return _positions(h5, 0, h5["particles/walkers/position/value"].shape[0])


def _positions(h5, first, n):
    value = h5["particles/walkers/position/value"]
    policy = h5["trails/record_policy"].attrs
    precision = policy["precision"]
    if isinstance(precision, bytes):
        precision = precision.decode()
    if precision != "grid":
        return np.asarray(value[first:first + n], dtype=np.float64)
    return _grid_frames(value, first, n, int(policy["group_rows"]),
                        float(policy["position_precision"]))


def _grid_frames(value, first, n, group, step):
    """Rows first..first+n-1 of a quantised shard (docs/file-formats.md, "Quantised
    positions"): zigzag-coded differences to the atom before (a group's first row) or to the
    row before; decoded from the first row of the first group on."""
    start = first - first % group
    words = np.asarray(value[start:first + n], dtype=np.int64)
    d = (words >> 1) ^ -(words & 1)
    out = np.empty(d.shape, dtype=np.int64)
    for r in range(len(d)):
        if (start + r) % group == 0:
            out[r] = np.cumsum(d[r], axis=0)
        else:
            out[r] = out[r - 1] + d[r]
    return out[first - start:].astype(np.float64) * step


class Run:
    """A Trails run directory, read-only, as of the moment it was opened (see refresh())."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self._ledger = os.path.join(self.path, "ledger.sqlite")
        self._verified = set()
        self.refresh()

    # ----------------------------------------------------------------------------------------
    # Loading

    def refresh(self):
        """Re-reads the ledger: iterations committed since the Run was made become visible."""
        if not os.path.isfile(self._ledger):
            raise TrailsRunError(f"{self.path} is not a Trails run directory (no ledger.sqlite); "
                                 "give the outdir of a `trails run`")
        uri = "file:" + urllib.parse.quote(os.path.abspath(self._ledger)) + "?mode=ro"
        try:
            db = sqlite3.connect(uri, uri=True, isolation_level=None)
        except sqlite3.Error as e:
            raise TrailsRunError(f"{self._ledger}: cannot open the ledger read-only ({e})") from e
        try:
            db.execute("BEGIN")  # one snapshot for everything below
            self._check_identity(db)
            self._read(db)
            db.execute("COMMIT")
        except sqlite3.DatabaseError as e:
            raise TrailsRunError(f"{self._ledger} is damaged or not a Trails ledger ({e}); "
                                 "check the path, or read it with the Trails that made it") from e
        finally:
            db.close()

    def _check_identity(self, db):
        (app_id,) = db.execute("PRAGMA application_id").fetchone()
        (user_version,) = db.execute("PRAGMA user_version").fetchone()
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall()) \
            if self._has_table(db, "meta") else {}
        if app_id != _APPLICATION_ID or meta.get("application") != _APPLICATION:
            raise TrailsRunError(f"{self._ledger} is not a Trails ledger (application_id "
                                 f"{app_id:#x}); give the outdir of a `trails run`")
        stored = meta.get("schema_version", "")
        if str(user_version) != stored:
            raise TrailsRunError(f"{self._ledger} is damaged: schema versions disagree "
                                 f"(user_version {user_version}, meta {stored!r})")
        if user_version != SCHEMA_VERSION:
            raise TrailsRunError(
                f"{self._ledger} has store schema {user_version}; this reader reads schema "
                f"{SCHEMA_VERSION}: use the trails_run.py of the Trails that made the run "
                f"({meta.get('trails_version', 'unknown version')})")
        self.meta = {
            "trails_version": meta.get("trails_version", ""),
            "config_digest": meta.get("config_digest", ""),
            "created_at": meta.get("created_at", ""),
            "config": json.loads(meta.get("config", "null")),
            "effective_config": json.loads(meta.get("effective_config", "null")),
            "engine_system": json.loads(meta.get("engine_system", "null")) or {},
        }

    @staticmethod
    def _has_table(db, name):
        row = db.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
                         (name,)).fetchone()
        return row[0] == 1

    def _read(self, db):
        self._iters = {}
        for (it, cv_dim, n_atoms, dim, stride, dt, shard, size, crc) in db.execute(
                "SELECT iteration, cv_dim, n_atoms, spatial_dim, stride, dt, shard_file, "
                "shard_bytes, shard_checksum FROM iterations ORDER BY iteration"):
            self._iters[it] = {"cv_dim": cv_dim, "n_atoms": n_atoms, "spatial_dim": dim,
                               "stride": stride, "dt": float("nan") if dt is None else dt,
                               "shard": shard, "bytes": size, "crc": crc, "slots": 0}
        self.iterations = list(self._iters)
        self._segments = []  # ledger order
        self._cvs = []       # one (n_frames, cv_dim) array per segment
        by_key = {}
        for (it, w, ok, n, first_row, parent, blob) in db.execute(
                "SELECT iteration, walker, ok, n_frames, first_row, parent_key, cvs "
                "FROM walkers ORDER BY iteration, walker"):
            info = self._iters.get(it)
            if info is None:  # not committed (cannot happen in one transaction; be safe)
                continue
            info["slots"] = max(info["slots"], w + 1)
            if not ok:
                continue
            s = _Segment()
            s.iteration, s.walker, s.n_frames, s.first_row = it, w, n, first_row
            s.parent, s.stride, s.dt = parent, info["stride"], info["dt"]
            s.start_time, s.start_step = 0.0, 0
            if parent is not None:
                pi, pw, pf = (int(x) for x in parent.split(":"))
                p = by_key.get((pi, pw))
                if p is None or pf >= p.n_frames:
                    raise TrailsRunError(f"{self._ledger}: walker {w} of iteration {it} restarts "
                                         f"from frame {parent}, which is not committed; the "
                                         "ledger is inconsistent")
                s.start_time, s.start_step = p.time(pf), p.step(pf)
            by_key[(it, w)] = s
            cv_dim = info["cv_dim"]
            if len(blob) != n * cv_dim * 8:
                raise TrailsRunError(f"{self._ledger}: the cvs of walker {w} in iteration {it} "
                                     f"hold {len(blob)} bytes, expected {n} x {cv_dim} x 8")
            self._segments.append(s)
            self._cvs.append(np.frombuffer(blob, "<f8").reshape(n, cv_dim))
        self._flux = []
        if self._has_table(db, "recycling"):
            last = self.iterations[-1] if self.iterations else -1
            self._flux = [float(f) for (it, f) in db.execute(
                "SELECT iteration, flux FROM recycling ORDER BY iteration") if it <= last]
        self._builds = []
        if self._has_table(db, "msm_builds"):
            last = self.iterations[-1] if self.iterations else -1
            for (it, build_s, model) in db.execute(
                    "SELECT iteration, build_s, model FROM msm_builds ORDER BY iteration"):
                if it <= last:
                    self._builds.append({"iteration": it,
                                         "build_s": float("nan") if build_s is None else build_s,
                                         "model": json.loads(model)})
        self._models = []
        if self._has_table(db, "element_state"):
            last = self.iterations[-1] if self.iterations else -1
            for (it, blob) in db.execute(
                    "SELECT iteration, blob FROM element_state WHERE key = 'space_model' "
                    "ORDER BY iteration"):
                if it <= last:
                    m = json.loads(blob)
                    self._models.append({k: m[k] for k in
                                         ("kind", "trained_at", "applied_at", "training")})

    # ----------------------------------------------------------------------------------------
    # Selection (the rules of `trails export --iteration N --walker W`)

    def _select(self, iteration=None, walker=None):
        if iteration is not None and iteration not in self._iters:
            where = (f"committed: {self.iterations[0]}..{self.iterations[-1]}" if self.iterations
                     else "no iteration is committed yet")
            raise TrailsRunError(f"iteration {iteration}: not a committed iteration of "
                                 f"{self.path} ({where})")
        if walker is not None:
            slots = max((v["slots"] for k, v in self._iters.items()
                         if iteration is None or k == iteration), default=0)
            if not 0 <= walker < slots:
                where = (f"iteration {iteration}" if iteration is not None
                         else "the committed iterations")
                raise TrailsRunError(f"walker {walker}: no such walker in {where} of {self.path}"
                                     + (f" (walkers 0..{slots - 1})" if slots else ""))
        return [k for k, s in enumerate(self._segments)
                if (iteration is None or s.iteration == iteration)
                and (walker is None or s.walker == walker)]

    # ----------------------------------------------------------------------------------------
    # CVs, lineage, MSM builds (ledger only)

    @property
    def cv_dim(self):
        return self._iters[self.iterations[0]]["cv_dim"] if self.iterations else 0

    @property
    def cv_names(self):
        """The CV column names the run recorded (trails export --cv-names); cv_0, cv_1, ... for
        runs that recorded none."""
        d = self.cv_dim
        names = self.meta["engine_system"].get("cv_names")
        if (isinstance(names, list) and len(names) == d
                and all(isinstance(n, str) for n in names)):
            return list(names)
        return [f"cv_{k}" for k in range(d)]

    def cvs(self, iteration=None, walker=None, names=None):
        """Record array with fields iteration, walker, frame (int64) and one float64 field per
        CV, named by `names` (default: cv_names), one row per frame in ledger order."""
        names = self.cv_names if names is None else list(names)
        if len(names) != self.cv_dim or len(set(names) | {"iteration", "walker", "frame"}) \
                != len(names) + 3:
            raise TrailsRunError(f"{self.path}: {len(names)} CV field names {names} for "
                                 f"{self.cv_dim} CVs (they must be distinct and not iteration, "
                                 "walker or frame); pass names=")
        picked = self._select(iteration, walker)
        dtype = [("iteration", "<i8"), ("walker", "<i8"), ("frame", "<i8")] + \
            [(n, "<f8") for n in names]
        n_rows = sum(self._segments[k].n_frames for k in picked)
        out = np.recarray(n_rows, dtype=dtype)
        at = 0
        for k in picked:
            s, values = self._segments[k], self._cvs[k]
            rows = slice(at, at + s.n_frames)
            out["iteration"][rows] = s.iteration
            out["walker"][rows] = s.walker
            out["frame"][rows] = np.arange(s.n_frames)
            for j, n in enumerate(names):
                out[n][rows] = values[:, j]
            at += s.n_frames
        return out

    def lineage(self, iteration=None, walker=None):
        """Record array (key, parent) of frame keys "iteration:walker:frame", in ledger order;
        parent is the previous frame of the segment, the restart frame for frame 0, or "" for a
        frame 0 started from the initial structure (trails export --lineage)."""
        rows = []
        for k in self._select(iteration, walker):
            s = self._segments[k]
            for f in range(s.n_frames):
                parent = f"{s.iteration}:{s.walker}:{f - 1}" if f > 0 else (s.parent or "")
                rows.append((f"{s.iteration}:{s.walker}:{f}", parent))
        width = max([len(r[0]) for r in rows] + [len(r[1]) for r in rows] + [1])
        return np.rec.array(rows, dtype=[("key", f"<U{width}"), ("parent", f"<U{width}")]) \
            if rows else np.recarray(0, dtype=[("key", "<U1"), ("parent", "<U1")])

    def times(self, iteration=None, walker=None):
        """Walker-local time of each selected frame (engine time unit: ps for OpenMM), as in
        trails export --trajectory: a segment starts at its parent frame's time."""
        return np.array([s.time(f) for k in self._select(iteration, walker)
                         for s in [self._segments[k]] for f in range(s.n_frames)], dtype="<f8")

    def flux_history(self):
        """The weighted ensemble's recycled flux per committed iteration (ledger table
        recycling; docs/kinetics.md), [] for a run without recycling."""
        return list(self._flux)

    def msm_builds(self):
        """The in-loop MSM builds (ledger table msm_builds): a list of dicts with iteration,
        build_s and model (the JSON record of docs/file-formats.md), by iteration."""
        return [dict(b) for b in self._builds]

    def space_models(self):
        """The neural learned space's networks (element_state key space_model, docs/cvs.md "What
        is stored"): a list of dicts with kind, trained_at, applied_at (the iteration from which
        its CVs are stored) and training (epochs_run, loss, vamp2, SPIB label changes and state
        counts), by iteration; empty for fixed, PCA and TICA runs. The weights stay in the
        ledger: `trails export RUN --model FILE.pt` writes them as TorchScript."""
        return [dict(m) for m in self._models]

    # ----------------------------------------------------------------------------------------
    # Positions (shards)

    def _shard(self, iteration):
        info = self._iters[iteration]
        path = os.path.join(self.path, info["shard"])
        if iteration not in self._verified:
            try:
                with open(path, "rb") as f:
                    data = f.read()
            except OSError as e:
                raise TrailsRunError(f"{path}: the shard of committed iteration {iteration} "
                                     f"cannot be read ({e.strerror}); the run is damaged") from e
            crc = f"{zlib.crc32(data):08x}"
            if len(data) != info["bytes"] or crc != info["crc"]:
                raise TrailsRunError(f"{path} is damaged: {len(data)} bytes, CRC-32 {crc}; the "
                                     f"ledger records {info['bytes']} bytes, {info['crc']}")
            self._verified.add(iteration)
        return path

    def frames(self, iteration, walker):
        """Stored positions of one walker's segment as float64, shape (n_frames, n_atoms,
        spatial_dim), in the store's units: nm for OpenMM runs, reduced units for the built-in
        engine (whose one "atom" is the CV point). With output.record_selection only the
        recorded atoms (record_atoms()) are there; with output.position_precision the values
        are grid index x precision, the very numbers the run computed with."""
        import h5py
        picked = self._select(iteration, walker)
        if not picked:
            raise TrailsRunError(f"walker {walker} of iteration {iteration} in {self.path} "
                                 "failed and stored no frames")
        s = self._segments[picked[0]]
        with h5py.File(self._shard(iteration), "r") as h5:
            value = h5["particles/walkers/position/value"]
            policy = h5["trails/record_policy"].attrs
            return _positions(h5, s.first_row, s.n_frames)

    def record_atoms(self, iteration):
        """Atom indices a shard records (output.record_selection), or None for every atom."""
        import h5py
        self._select(iteration)
        with h5py.File(self._shard(iteration), "r") as h5:
            atoms = h5.get("trails/record_policy/atoms")
            return None if atoms is None else np.asarray(atoms[...], dtype=np.int64)

    def topology_file(self):
        """The prepared topology (prepared/<digest>/topology.pdb) of an OpenMM run."""
        prepared = os.path.join(self.path, "prepared")
        found = sorted(os.path.join(prepared, d, "topology.pdb")
                       for d in (os.listdir(prepared) if os.path.isdir(prepared) else [])
                       if os.path.isfile(os.path.join(prepared, d, "topology.pdb")))
        if len(found) != 1:
            raise TrailsRunError(
                f"{self.path} has no prepared/<digest>/topology.pdb; only OpenMM runs that "
                "prepared a topology have one" if not found else
                f"{self.path} holds {len(found)} prepared systems; remove the stale ones")
        return found[0]

    def to_mdtraj(self, iteration=None, walker=None):
        """The selected frames as an mdtraj.Trajectory (nm, walker-local time in ps), in
        ledger order, with the prepared topology (trails export --trajectory in memory)."""
        if not self.meta["engine_system"].get("molecular", False):
            raise TrailsRunError(f"{self.path} is a {self.meta['engine_system'].get('engine')} "
                                 "run, whose particles are CV-space points: use cvs()")
        import mdtraj
        picked = self._select(iteration, walker)
        if not picked:
            raise TrailsRunError(f"the selection of {self.path} holds no frames")
        top = mdtraj.load_topology(self.topology_file())
        atoms = self.record_atoms(self._segments[picked[0]].iteration)
        if atoms is not None:
            top = top.subset(atoms)
        xyz = np.concatenate([self.frames(self._segments[k].iteration, self._segments[k].walker)
                              for k in picked])
        return mdtraj.Trajectory(xyz.astype(np.float32), top,
                                 time=self.times(iteration, walker))


# --------------------------------------------------------------------------------------------
# Trails-MD's data API (trails_md.analysis.data) over a Trails run (docs/python.md, "Trails-MD's
# data functions"): the same names, arguments and return shapes, read from the run store
# instead of iter_N/*.npz, output.log's header and checkpoint pickles.

def load_cv_points(run_dir):
    """Every committed frame's CVs, (n_frames, cv_dim) float64, in Trails-MD's row order
    (iterations, then surviving walkers in walker order, each walker's frames consecutive);
    shape (0, 0) for a run without frames."""
    run = Run(run_dir)
    table = run.cvs()
    if len(table) == 0:
        return np.zeros((0, 0), dtype=float)
    return np.column_stack([np.asarray(table[n], dtype=float) for n in run.cv_names])


def _timescales(model):
    return np.array([np.nan if t is None else float(t) for t in model.get("timescales") or []])


def load_msm_series(run_dir):
    """{"iterations", "vamp2", "timescales"} of the in-loop MSM builds that made a model:
    aligned arrays, timescales (n_builds, max_processes) NaN-padded, in frames."""
    builds = [b for b in Run(run_dir).msm_builds() if b["model"].get("transition_matrix")]
    if not builds:
        return {"iterations": np.array([], dtype=int), "vamp2": np.array([], dtype=float),
                "timescales": np.zeros((0, 0), dtype=float)}
    ts = [_timescales(b["model"]) for b in builds]
    padded = np.full((len(ts), max(len(t) for t in ts)), np.nan)
    for i, t in enumerate(ts):
        padded[i, :len(t)] = t
    return {"iterations": np.array([b["iteration"] for b in builds], dtype=int),
            "vamp2": np.array([np.nan if b["model"].get("vamp2") is None
                               else float(b["model"]["vamp2"]) for b in builds]),
            "timescales": padded}


def load_latest_msm(run_dir):
    """The latest build with a model as Trails-MD's msm.npz arrays (lagtime, timescales,
    stationary_distribution, transition_matrix flattened, cluster_centers, vamp2_score, and
    where present metastable_populations, count_matrix, its_lagtimes, its_timescales), or
    None when no build made a model."""
    builds = [b for b in Run(run_dir).msm_builds() if b["model"].get("transition_matrix")]
    if not builds:
        return None
    m = builds[-1]["model"]
    centres = np.asarray(m.get("cluster_centers") or [], dtype=float)
    n = max(1, int(m.get("n_microstates") or 1))
    out = {
        "lagtime": np.array(int(m["lagtime"])),
        "timescales": _timescales(m),
        "stationary_distribution": np.asarray(m["stationary_distribution"], dtype=float),
        "transition_matrix": np.asarray(m["transition_matrix"], dtype=float).ravel(),
        "cluster_centers": centres.reshape(n, -1) if centres.size else centres,
        "vamp2_score": np.array([np.nan if m.get("vamp2") is None else float(m["vamp2"])]),
    }
    if m.get("metastable_populations") is not None:
        out["metastable_populations"] = np.asarray(m["metastable_populations"], dtype=float)
    if m.get("count_matrix") is not None:
        out["count_matrix"] = np.asarray(m["count_matrix"], dtype=float).ravel()
    its = m.get("its") or {}
    if its:
        lags = sorted(its, key=int)
        width = max(len(its[k] or []) for k in lags)
        table = np.full((len(lags), width), np.nan)
        for i, k in enumerate(lags):
            for j, t in enumerate(its[k] or []):
                table[i, j] = np.nan if t is None else float(t)
        out["its_lagtimes"] = np.array([int(k) for k in lags])
        out["its_timescales"] = table
    return out


def load_run_meta(run_dir):
    """The numeric `# key=value` header entries of the run's output.log (step, dt, walker,
    stride, ...) as floats, {} without an output.log: as Trails-MD, e.g. tau_ps = step * dt."""
    log = os.path.join(os.fspath(run_dir), "output.log")
    meta = {}
    if not os.path.isfile(log):
        return meta
    with open(log, encoding="utf-8") as f:
        for line in f:
            if not line.startswith("# ") or "=" not in line:
                continue
            key, _, value = line[2:].partition("=")
            try:
                meta[key.strip()] = float(value.strip())
            except ValueError:
                continue
    return meta


def load_flux_history(run_dir):
    """The recycled flux per committed iteration (weighted ensemble with recycle_target), as a
    list of floats; [] for other runs."""
    return Run(run_dir).flux_history()
