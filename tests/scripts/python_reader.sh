#!/usr/bin/env bash
# share/trails/python/trails_run.py (docs/python.md) on built-in campaigns: its CVs and lineage,
# written as CSV with the export's number format, equal `trails export --cvs/--lineage` byte
# for byte (whole run, --cv-names, --iteration/--walker); iterations, frames (the built-in
# engine's one "atom" is the CV point, so frames equal the CVs exactly), walker-local times, MSM
# builds against the ledger; Trails-MD's data functions (load_cv_points, ...) against the ledger;
# crash leftovers are ignored; errors raise TrailsRunError; reading changes no file of the run.
source "$(dirname "$0")/lib/common.bash"
export PYTHONPATH="$ROOT/share/trails/python"
PY=/usr/bin/python3

# Müller–Brown (2-D CVs) with walker 1 failing in iteration 0 (a failed walker's slot), and the
# 1-D double well with the in-loop MSM (msm_builds rows).
bad_start_config mb.yaml mb 0.5
"$TRAILS" run mb.yaml > mb.out 2>&1 || fail "Müller–Brown run: $(cat mb.out)"
double_well_config dw.yaml dw 300
cat >> dw.yaml <<YAML
msm:
  enabled: true
  min_frames: 200
  n_microstates: 10
  lagtime: 2
  lagtimes: [1, 2]
YAML
"$TRAILS" run dw.yaml --iterations 5 > dw.out 2>&1 || fail "double-well run: $(cat dw.out)"

sums() { find "$1" -type f -print0 | sort -z | xargs -0 sha256sum; }
before_mb=$(sums mb) before_dw=$(sums dw) listing_mb=$(snapshot mb) listing_dw=$(snapshot dw)

# trails_csv RUN PREFIX [ITERATION WALKER]: the reader's cvs/lineage/named-cvs CSVs.
trails_csv() {
  $PY - "$@" <<'PY'
import sys
from trails_run import Run
run_dir, prefix = sys.argv[1], sys.argv[2]
sel = {}
if len(sys.argv) > 3:
    sel = {"iteration": int(sys.argv[3]), "walker": int(sys.argv[4])}
run = Run(run_dir)
g = lambda v: "%.17g" % v  # the export's format (src/trails/report/export/export.cpp)
for suffix, names in (("cvs", [f"cv_{k}" for k in range(run.cv_dim)]), ("named", run.cv_names)):
    cvs = run.cvs(names=names, **sel)
    with open(f"{prefix}.{suffix}.csv", "w", newline="\n") as out:
        out.write(",".join(["iteration", "walker", "frame"] + names) + "\n")
        for row in cvs:
            out.write(",".join([str(row[0]), str(row[1]), str(row[2])] +
                               [g(row[n]) for n in names]) + "\n")
with open(f"{prefix}.lineage.csv", "w", newline="\n") as out:
    out.write("key,parent\n")
    for key, parent in run.lineage(**sel):
        out.write(f"{key},{parent}\n")
PY
}

for run in mb dw; do
  "$TRAILS" export $run --cvs $run.cvs.csv --lineage $run.lineage.csv > /dev/null
  "$TRAILS" export $run --cvs $run.named.csv --cv-names > /dev/null
  trails_csv $run py.$run
  for f in cvs named lineage; do
    cmp $run.$f.csv py.$run.$f.csv || fail "$run: the reader's $f CSV differs from trails export"
  done
  "$TRAILS" export $run --cvs $run.sel.cvs.csv --lineage $run.sel.lineage.csv --iteration 2 \
    --walker 3 > /dev/null
  "$TRAILS" export $run --cvs $run.sel.named.csv --cv-names --iteration 2 --walker 3 > /dev/null
  trails_csv $run py.$run.sel 2 3
  for f in cvs named lineage; do
    cmp $run.sel.$f.csv py.$run.sel.$f.csv ||
      fail "$run: the reader's $f CSV of iteration 2 walker 3 differs from trails export"
  done
done
head -1 mb.named.csv | matches -x "iteration,walker,frame,x0,x1" || fail "cv names of the built-in engine"
head -1 dw.named.csv | matches -x "iteration,walker,frame,x0" || fail "cv names of the double well"
[ "$(wc -l < mb.sel.cvs.csv)" -eq 11 ] || fail "iteration 2 walker 3: 10 frames expected"
pass "cvs and lineage CSVs from the reader equal trails export byte for byte"

$PY - <<'PY' || fail "reader iterations, frames, times, MSM builds"
import json, sqlite3
import numpy as np
from trails_run import Run, TrailsRunError
for name in ("mb", "dw"):
    run = Run(name)
    db = sqlite3.connect(f"{name}/ledger.sqlite")
    assert run.iterations == [i for (i,) in db.execute("SELECT iteration FROM iterations")], name
    cvs = run.cvs()
    for it in run.iterations:
        for (w, n, first, dim) in db.execute(
                "SELECT walker, n_frames, first_row, spatial_dim FROM walkers JOIN iterations "
                "USING (iteration) WHERE iteration = ? AND ok ORDER BY walker", (it,)):
            xyz = run.frames(it, w)
            assert xyz.shape == (n, 1, dim) and xyz.dtype == np.float64, (name, it, w, xyz.shape)
            mine = cvs[(cvs.iteration == it) & (cvs.walker == w)]
            cols = np.column_stack([mine[c] for c in run.cv_names])
            assert np.array_equal(xyz[:, 0, :], cols), (name, it, w)  # identity projection
    # Walker-local time: a segment starts at its parent frame's time, frames stride*dt apart.
    stride, dt = db.execute("SELECT stride, dt FROM iterations WHERE iteration = 0").fetchone()
    t0 = run.times(0, 0)
    assert list(t0) == [float((f + 1) * stride) * dt for f in range(len(t0))], t0
    # Every frame against its segment's start (the parent frame's time, 0 for a root).
    lin = {k: p for k, p in run.lineage()}
    step = {i: (s, d) for i, s, d in db.execute("SELECT iteration, stride, dt FROM iterations")}
    keys = [f"{r.iteration}:{r.walker}:{r.frame}" for r in cvs]
    times = dict(zip(keys, run.times()))
    for k in keys:
        it, w, f = map(int, k.split(":"))
        root = lin[f"{it}:{w}:0"]
        start = times[root] if root else 0.0
        s, d = step[it]
        assert times[k] == start + float((f + 1) * s) * d, (k, times[k], start)
rows = [(i, json.loads(m)) for i, m in sqlite3.connect("dw/ledger.sqlite").execute(
    "SELECT iteration, model FROM msm_builds ORDER BY iteration")]
builds = Run("dw").msm_builds()
assert rows and [(b["iteration"], b["model"]) for b in builds] == rows, (len(rows), len(builds))
assert Run("mb").msm_builds() == []
# Selection errors name the value and the valid range.
for args, needle in (({"iteration": 7}, "committed: 0..2"), ({"walker": 9}, "walkers 0..3"),
                     ({"iteration": 0, "walker": -1}, "walkers 0..3")):
    try:
        Run("mb").cvs(**args)
    except TrailsRunError as e:
        assert needle in str(e), (args, str(e))
    else:
        raise AssertionError(f"{args} accepted")
try:
    Run("mb").frames(0, 1)  # walker 1 failed in iteration 0
except TrailsRunError as e:
    assert "failed" in str(e), str(e)
else:
    raise AssertionError("frames of a failed walker")
print("ok")
PY
pass "reader iterations, frames, walker-local times and MSM builds match the ledger"

# Crash leftovers (an uncommitted shard, a temporary) are not read: the reader sees what
# trails status sees.
cp -a mb left
$PY - <<'PY'
import shutil
shutil.copy("left/shards/iter_000002.h5", "left/shards/iter_000003.h5")
open("left/shards/iter_000004.h5.tmp", "wb").write(b"partial")
PY
trails_csv left py.left
cmp py.left.cvs.csv mb.cvs.csv || fail "crash leftovers changed what the reader sees"
$PY -c 'from trails_run import Run; r = Run("left"); assert r.iterations == [0, 1, 2], r.iterations'
pass "uncommitted shards and temporaries are ignored"

# Errors: not a run directory, a damaged ledger; exit code of an uncaught TrailsRunError.
mkdir notrun
cat > err.py <<'PY'
import sys
from trails_run import Run, TrailsRunError
try:
    Run(sys.argv[1])
except TrailsRunError as e:
    print(e)
    sys.exit(3)
sys.exit(0)
PY
set +e
$PY err.py notrun > e1.txt; rc1=$?
cp -a mb damaged && head -c 4096 /dev/urandom > damaged/ledger.sqlite
$PY err.py damaged > e2.txt; rc2=$?
$PY -c 'from trails_run import Run; Run("notrun")' 2> e3.txt; rc3=$?
set -e
[ $rc1 -eq 3 ] && grep -q "notrun is not a Trails run directory (no ledger.sqlite)" e1.txt ||
  fail "not a run dir: rc $rc1, $(cat e1.txt)"
[ $rc2 -eq 3 ] && grep -q "damaged/ledger.sqlite" e2.txt || fail "damaged ledger: rc $rc2, $(cat e2.txt)"
[ $rc3 -eq 1 ] && grep -q "trails_run.TrailsRunError: notrun is not a Trails run" e3.txt ||
  fail "uncaught TrailsRunError: rc $rc3, $(cat e3.txt)"
pass "errors raise TrailsRunError naming the path"

# Trails-MD's data functions (load_cv_points, load_msm_series, load_latest_msm, load_run_meta,
# load_flux_history) over Trails runs, against the ledger and output.log; the weighted-ensemble
# run is `trails init --template we-kinetics`.
"$TRAILS" init --template we-kinetics -o we.yaml > /dev/null || fail "we-kinetics template"
sed -i 's#^outdir: .*#outdir: we#' we.yaml
"$TRAILS" run we.yaml --iterations 20 > we.out 2>&1 || fail "we-kinetics run: $(cat we.out)"
$PY - <<'PY' || fail "Trails-MD's data functions"
import json, sqlite3
import numpy as np
from trails_run import (Run, load_cv_points, load_msm_series, load_latest_msm, load_run_meta,
                        load_flux_history)
db = sqlite3.connect("mb/ledger.sqlite")
rows = []
for n, blob in db.execute("SELECT n_frames, cvs FROM walkers WHERE ok = 1 ORDER BY iteration, walker"):
    rows.append(np.frombuffer(blob, "<f8").reshape(n, -1))
assert np.array_equal(load_cv_points("mb"), np.vstack(rows))
series = load_msm_series("dw")
models = [(i, json.loads(m)) for i, m in sqlite3.connect("dw/ledger.sqlite").execute(
    "SELECT iteration, model FROM msm_builds ORDER BY iteration")]
models = [(i, m) for i, m in models if m["transition_matrix"]]
assert list(series["iterations"]) == [i for i, _ in models], series["iterations"]
assert np.allclose(series["vamp2"], [m["vamp2"] for _, m in models])
assert series["timescales"].shape[0] == len(models)
latest = load_latest_msm("dw")
assert latest["lagtime"] == models[-1][1]["lagtime"]
assert np.allclose(latest["stationary_distribution"], models[-1][1]["stationary_distribution"])
assert load_latest_msm("mb") is None and len(load_msm_series("mb")["iterations"]) == 0
meta = load_run_meta("mb")
spawning = Run("mb").meta["config"]["spawning"]
assert meta["step"] == spawning["step"] and meta["stride"] == spawning["stride"], (meta, spawning)
assert meta["walker"] == spawning["walker"] and "dt" in meta, meta
we = sqlite3.connect("we/ledger.sqlite")
assert we.execute("SELECT count(*) FROM sqlite_master WHERE name = 'recycling'").fetchone()[0]
flux = [f for (f,) in we.execute("SELECT flux FROM recycling ORDER BY iteration")]
assert load_flux_history("we") == flux and len(flux) == 20 and sum(flux) > 0, (load_flux_history("we"), flux)
assert load_flux_history("mb") == []
print("ok")
PY
pass "Trails-MD's data functions read a Trails run (CV points, MSM series and latest, meta, flux)"

[ "$(sums mb)" = "$before_mb" ] && [ "$(sums dw)" = "$before_dw" ] || fail "reading changed a file"
[ "$(snapshot mb)" = "$listing_mb" ] && [ "$(snapshot dw)" = "$listing_dw" ] ||
  fail "reading created, removed or touched a file"
pass "reading a run changes nothing in it"
