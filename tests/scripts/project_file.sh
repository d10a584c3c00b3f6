#!/usr/bin/env bash
# system.project_file (Trails-MD's extract_cvs): an alanine-dipeptide campaign whose φ/ψ come from
# a Python module (tests/data/openmm/alad_phi_psi_project.py: mdtraj reads the exported XTCs)
# matches the same campaign with the built-in `cvs:` φ/ψ to 1e-5 rad with identical spawns; the
# module is called as Trails-MD calls it; kill -9 + resume is bitwise identical; bad modules are
# exit-2 errors before any MD (nothing written) or, when only real iterations expose them, a
# runtime failure naming the file that a fixed module and --resume get past; a periodic run
# hands each frame's box to extract_cvs.
source "$(dirname "$0")/lib/common.bash"
PDB="$ROOT/examples/alanine-dipeptide/alanine-dipeptide.pdb"
PHIPSI="$ROOT/tests/data/openmm/alad_phi_psi_project.py"

alad_config() {  # FILE OUTDIR PROJECT_FILE|cvs
  local cvs="" pf=""
  if [ "$3" = cvs ]; then
    cvs=$'cvs:\n  - {name: phi, kind: phi, resid: 2}\n  - {name: psi, kind: psi, resid: 2}'
  else
    pf="  project_file: $3"
  fi
  cat > "$1" <<YAML
outdir: $2
random_seed: 11
iterations: 3
$cvs
n_bins: [30, 30]
min_values: [-3.141592653589793, -3.141592653589793]
max_values: [3.141592653589793, 3.141592653589793]
system:
  conf_file: $PDB
  forcefield: [amber14-all.xml]
$pf
engine:
  md_engine: openmm
  platform_name: Reference
  dt: 0.002
spawning:
  walker: 4
  step: 200
  stride: 20
  max_workers: 2
  spawn_scheme: density
  spawn_type: hard
YAML
}
checksums() { sqlite3 "$1/ledger.sqlite" "SELECT iteration, shard_checksum FROM iterations ORDER BY iteration"; }

# 1. project_file φ/ψ against the built-in cvs: block, and how extract_cvs was called.
alad_config pf.yaml pf "$PHIPSI"
alad_config builtin.yaml builtin cvs
"$TRAILS" check pf.yaml > check.out 2>&1 || fail "trails check with a good project file: $(cat check.out)"
[ ! -e pf ] || fail "trails check wrote the run directory"
TRAILS_TEST_PROJECT_SPY="$WORK/spy.jsonl" "$TRAILS" run pf.yaml > pf.out 2>&1 || fail "project_file run: $(cat pf.out)"
"$TRAILS" run builtin.yaml > builtin.out 2>&1 || fail "cvs run: $(cat builtin.out)"
[ ! -e pf/project_file.tmp ] || fail "the per-iteration scratch directory was left behind"
export_run pf pf
export_run builtin builtin
"$TRAILS" export pf --cvs pf.named.csv --cv-names > /dev/null
[ "$(head -1 pf.named.csv)" = "iteration,walker,frame,extract_cvs[0],extract_cvs[1]" ] ||
  fail "--cv-names of a project_file run: $(head -1 pf.named.csv)"
"$TRAILS" export builtin --cvs builtin.named.csv --cv-names > /dev/null
[ "$(head -1 builtin.named.csv)" = "iteration,walker,frame,phi,psi" ] ||
  fail "--cv-names of the cvs: run: $(head -1 builtin.named.csv)"
cmp pf.lineage.csv builtin.lineage.csv || fail "project_file and cvs runs spawned differently"
/usr/bin/python3 - "$PDB" <<'PY' || fail "project_file CVs or call differ"
import json, sys
import numpy as np
load = lambda f: np.loadtxt(f, delimiter=",", skiprows=1)
pf, ref = load("pf.cvs.csv"), load("builtin.cvs.csv")
assert pf.shape == ref.shape == (120, 5), (pf.shape, ref.shape)
assert (pf[:, :3] == ref[:, :3]).all()
d = np.abs(np.angle(np.exp(1j * (pf[:, 3:] - ref[:, 3:])))).max()
print(f"max |d phi/psi| project_file vs cvs: {d:.2e} rad")
assert d < 1e-5, d
calls = [json.loads(l) for l in open("spy.jsonl")]
# The start-structure probe (one 1-frame file), then one call per iteration with the 4 walkers'
# XTCs in walker order, 10 frames each; top_file None (force-field run), conf_file as configured.
assert len(calls) == 4 and calls[0]["frames"] == [1], calls[0]
for n, c in enumerate(calls[1:]):
    names = [t.rsplit("/", 1)[1] for t in c["trajectories"]]
    assert names == [f"iteration_{n}_{w}.xtc" for w in range(4)], names
    assert all(t.startswith("/") for t in c["trajectories"]), c["trajectories"]
    assert c["frames"] == [10] * 4 and c["top_file"] is None and c["conf_file"] == sys.argv[1], c
PY
pass "project_file φ/ψ match the built-in cvs to 1e-5 rad; extract_cvs(list of XTC paths, top, conf)"

# 2. Killed after iteration 1 committed, then resumed: bitwise the uninterrupted run.
alad_config crash.yaml crash "$PHIPSI"
set +e
TRAILS_CRASH_AT=after-commit:1 "$TRAILS" run crash.yaml > crash.out 2>&1
rc=$?
set -e
[ $rc -eq 137 ] || fail "expected death by SIGKILL (137), got $rc: $(cat crash.out)"
"$TRAILS" run crash.yaml --resume > resume.out 2>&1 || fail "resume: $(cat resume.out)"
export_run crash crash
cmp pf.cvs.csv crash.cvs.csv || fail "resumed CV export differs"
[ "$(checksums pf)" = "$(checksums crash)" ] || fail "resumed shards differ"
pass "kill -9 and resume reproduce the project_file campaign bitwise"

# 3. Bad modules caught before MD: exit 2 from check and run, the file named, no run directory.
printf 'def extract_cvs(trajectories, top_file, conf_file)\n    return 1\n' > syntax.py
printf 'import numpy as np\n\ndef compute(trajectories, top_file, conf_file):\n    return None\n' > nofunc.py
printf 'import no_such_module_for_trails\n' > badimport.py
printf 'extract_cvs = 3\n' > notcallable.py
cat > nan.py <<'PY'
import numpy as np
def extract_cvs(trajectories, top_file, conf_file):
    return np.full((1, 2), np.nan)
PY
cat > cols.py <<'PY'
import numpy as np
def extract_cvs(trajectories, top_file, conf_file):
    return np.zeros((1, 3))
PY
cat > raises.py <<'PY'
def helper(x):
    raise ValueError("no dihedral atoms in " + x)
def extract_cvs(trajectories, top_file, conf_file):
    return helper(trajectories[0])
PY
expect_preflight() {  # NAME CHECK_TOO MESSAGE...
  local name=$1 check=$2
  shift 2
  alad_config "$name.yaml" "$name.run" "$WORK/$name.py"
  local cmds=(run)
  [ "$check" = yes ] && cmds+=(check)
  for cmd in "${cmds[@]}"; do
    set +e
    "$TRAILS" "$cmd" "$name.yaml" > "$name.$cmd.out" 2>&1
    rc=$?
    set -e
    [ $rc -eq 2 ] || fail "$name: trails $cmd should exit 2, got $rc: $(cat "$name.$cmd.out")"
    for m in "system.project_file" "$WORK/$name.py" "$@"; do
      grep -qF -- "$m" "$name.$cmd.out" || fail "$name: trails $cmd: no '$m' in: $(cat "$name.$cmd.out")"
    done
    [ ! -e "$name.run" ] || fail "$name: trails $cmd left a run directory behind"
  done
}
expect_preflight syntax yes "SyntaxError" "importing the module failed"
expect_preflight nofunc yes "defines no extract_cvs"
expect_preflight badimport yes "ModuleNotFoundError" "no_such_module_for_trails" "Python traceback"
expect_preflight notcallable yes "extract_cvs = 3 is not callable"
# Only a call shows these: the start-structure probe (trails check and trails run).
expect_preflight nan yes "non-finite values" "row 0, column 0"
expect_preflight cols yes "returned 3 CV columns but n_bins has 2 entries"
expect_preflight raises yes "extract_cvs raised ValueError: no dihedral atoms in" "raises.py\", line 2, in helper"
pass "bad project files: exit 2 naming the file (traceback tail), before any MD, nothing written"

# 4. Wrong only on real iterations (rows of the first trajectory only; NaN from iteration 1 on):
# a runtime failure naming the file and iteration; nothing was committed, so nothing is left and
# the fixed module runs afresh.
cat > rows.py <<PY
import importlib.util
spec = importlib.util.spec_from_file_location("phipsi", "$PHIPSI")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
def extract_cvs(trajectories, top_file, conf_file):
    return m.extract_cvs(trajectories[:1], top_file, conf_file)
PY
alad_config rows.yaml rows "$WORK/rows.py"
set +e
"$TRAILS" run rows.yaml > rows.out 2>&1
rc=$?
set -e
[ $rc -eq 1 ] || fail "rows: expected a runtime failure (1), got $rc: $(cat rows.out)"
grep -qF "iteration 0: system.project_file: $WORK/rows.py: extract_cvs returned 10 rows for 40 frames in 4 trajectories" rows.out ||
  fail "rows: message: $(cat rows.out)"
[ ! -e rows ] || fail "rows: a run that failed before its first commit left $(find rows)"
cat > rows.py <<PY
import importlib.util
spec = importlib.util.spec_from_file_location("phipsi", "$PHIPSI")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
extract_cvs = m.extract_cvs
PY
"$TRAILS" run rows.yaml > rows2.out 2>&1 || fail "rows: the fixed module: $(cat rows2.out)"
export_run rows rows
cmp pf.cvs.csv rows.cvs.csv || fail "rows: the fixed, resumed run differs from the good one"
pass "runtime extract_cvs failure: exit 1 naming file and iteration, nothing left; the fixed module runs"

# NaN for one walker's frames only (the second trajectory of each call): that walker fails alone,
# named (docs/reliability.md, "Non-finite values"), and the failure policy lets the run go on;
# no NaN is committed.
cat > nanone.py <<PY
import importlib.util
import mdtraj as md
spec = importlib.util.spec_from_file_location("phipsi", "$PHIPSI")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
def extract_cvs(trajectories, top_file, conf_file):
    cvs = m.extract_cvs(list(trajectories), top_file, conf_file)
    if len(trajectories) > 1:
        first = md.load(trajectories[0], top=conf_file).n_frames
        second = md.load(trajectories[1], top=conf_file).n_frames
        cvs[first:first + second, 1] = float("nan")
    return cvs
PY
alad_config nanone.yaml nanone "$WORK/nanone.py"
sed -i 's/^iterations: 3$/iterations: 1\nmin_success_fraction: 0.5/' nanone.yaml
"$TRAILS" run nanone.yaml > nanone.out 2>&1 || fail "one walker's NaN CVs stopped the run: $(cat nanone.out)"
grep -qF "walker 1 of iteration 0: collective variable 1 of frame 0 is nan" nanone.out ||
  fail "the walker with NaN CVs is not named: $(cat nanone.out)"
[ "$(sqlite3 nanone/ledger.sqlite 'SELECT COUNT(*) FROM walkers WHERE ok = 0')" -eq 1 ] ||
  fail "not exactly walker 1 failed"
"$TRAILS" export nanone --cvs nanone.cvs.csv > /dev/null
! grep -qi nan nanone.cvs.csv || fail "a NaN CV was committed"
pass "extract_cvs NaN for one walker: that walker fails, the run goes on, nothing non-finite kept"

# 5. Config cross-checks: not with the built-in engine, not together with cvs:.
alad_config both.yaml both "$PHIPSI"
sed -i 's/^n_bins/cvs:\n  - {name: phi, kind: phi, resid: 2}\n  - {name: psi, kind: psi, resid: 2}\nn_bins/' both.yaml
set +e
"$TRAILS" check both.yaml > both.out 2>&1
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "system.project_file: is set together with cvs" both.out ||
  fail "project_file + cvs: expected exit 2, got $rc: $(cat both.out)"
pass "project_file with a cvs: block is refused"

# 6. A periodic system: each frame's box reaches extract_cvs (the XTC box), here as the a-edge.
SOLV="$ROOT/examples/alanine-dipeptide/solvated/alanine-dipeptide-solvated.pdb"
cat > boxlen.py <<'PY'
import mdtraj as md
def extract_cvs(trajectories, top_file, conf_file):
    t = md.load(list(trajectories), top=conf_file)
    return t.unitcell_vectors[:, 0, :1].astype(float)
PY
cat > solv.yaml <<YAML
outdir: solv
random_seed: 5
iterations: 1
n_bins: [10]
min_values: [2.0]
max_values: [3.5]
system:
  conf_file: $SOLV
  forcefield: [amber14-all.xml, amber14/tip3p.xml]
  project_file: $WORK/boxlen.py
engine:
  md_engine: openmm
  platform_name: CPU
spawning:
  walker: 2
  step: 20
  stride: 10
  max_workers: 2
YAML
OPENMM_CPU_THREADS=1 "$TRAILS" run solv.yaml > solv.out 2>&1 || fail "periodic project_file run: $(cat solv.out)"
/usr/bin/python3 - <<'PY' || fail "the box did not reach extract_cvs"
import h5py, numpy as np
with h5py.File("solv/shards/iter_000000.h5", "r") as f:
    edges = f["particles/walkers/box/edges/value"][...]
    cvs = f["observables/cvs/value"][...]
assert cvs.shape == (4, 1) and np.abs(cvs[:, 0] - edges[:, 0, 0]).max() < 1e-6, (cvs, edges[:, 0, 0])
PY
pass "periodic system: every frame's box reaches extract_cvs"

# 7. With a learned space (tica on heavy-atom distances) the project file's CVs are evaluation
# only (Trails-MD's physical_cvs): 2 columns next to a 1-D learned space; the same campaign with
# the built-in cvs: φ/ψ spawns identically and stores the same physical CVs to 1e-5 rad.
learned_pf() {  # FILE OUTDIR PROJECT_FILE|cvs
  alad_config "$1" "$2" "$3"
  sed -i -e 's/^n_bins: .*/n_bins: [10]\nspace_mode: tica\nadaptive_feature_type: distances\nadaptive_model:\n  lagtime: 2/' \
    -e '/^min_values/d' -e '/^max_values/d' \
    -e 's/^  forcefield: \[amber14-all.xml\]/  forcefield: [amber14-all.xml]\n  feature_selection: protein and not (type H)/' "$1"
}
learned_pf lpf.yaml lpf "$PHIPSI"
learned_pf lcvs.yaml lcvs cvs
"$TRAILS" run lpf.yaml > lpf.out 2>&1 || fail "project_file + tica run: $(cat lpf.out)"
"$TRAILS" run lcvs.yaml > lcvs.out 2>&1 || fail "cvs + tica run: $(cat lcvs.out)"
export_run lpf lpf
export_run lcvs lcvs
cmp lpf.lineage.csv lcvs.lineage.csv || fail "project_file + tica and cvs + tica spawned differently"
cmp lpf.cvs.csv lcvs.cvs.csv || fail "project_file + tica and cvs + tica learned CVs differ"
/usr/bin/python3 - <<'PY' || fail "physical CVs of the learned-space project_file run"
import glob, h5py, numpy as np
worst = 0.0
for a in sorted(glob.glob("lpf/shards/iter_*.h5")):
    with h5py.File(a, "r") as f, h5py.File(a.replace("lpf/", "lcvs/"), "r") as g:
        p, q = f["observables/physical_cvs/value"][...], g["observables/physical_cvs/value"][...]
        assert p.shape == q.shape == (40, 2) and f["observables/cvs/value"].shape == (40, 1), p.shape
        worst = max(worst, np.abs(np.angle(np.exp(1j * (p - q)))).max())
assert worst < 1e-5, worst
print(f"physical CVs project_file vs cvs: {worst:.2e} rad")
PY
pass "project_file with a learned space: evaluation-only physical CVs; same spawns as cvs: + tica"

# 8. system.initial_trajectory with a project file (compat:initial-trajectory): extract_cvs gives
# the 120 seed frames' φ/ψ (one "iteration -1" trajectory) and the hard density spawner picks the 4
# starts from the least-populated bins; the banner names them; the same choice on a rerun.
"$TRAILS" export pf --trajectory init.xtc > /dev/null || fail "export of the seed trajectory"
seeded() {  # FILE OUTDIR
  alad_config "$1" "$2" "$PHIPSI"
  sed -i "s|^  project_file: .*|&\n  initial_trajectory: $WORK/init.xtc|" "$1"
  sed -i 's/^iterations: 3/iterations: 1/' "$1"
}
seeded seed.yaml seed
seeded seed2.yaml seed2
TRAILS_TEST_PROJECT_SPY="$WORK/seedspy.jsonl" "$TRAILS" run seed.yaml > seed.out 2>&1 || fail "seeded run: $(cat seed.out)"
"$TRAILS" run seed2.yaml > seed2.out 2>&1 || fail "second seeded run: $(cat seed2.out)"
line=$(grep -E "^  seeds +4 of 120 frames of init.xtc, picked by the hard density spawner over extract_cvs \(frames [0-9, ]+\)$" seed.out) \
  || fail "banner lacks the seeding line: $(cat seed.out)"
grep -qF "$line" seed2.out || fail "the rerun chose other seed frames: $(grep seeds seed2.out)"
frames=$(echo "$line" | sed -E 's/.*\(frames ([0-9, ]+)\)$/\1/')
/usr/bin/python3 - "$frames" "$PDB" <<'PY' || fail "seed frames are not the least-populated bins' frames"
import json, math, sys
import mdtraj as md, numpy as np
chosen = [int(x) for x in sys.argv[1].split(",")]
calls = [json.loads(l) for l in open("seedspy.jsonl")]
# probe, then the seed trajectory as one 120-frame file, then iteration 0's 4 walkers
assert calls[0]["frames"] == [1] and calls[1]["frames"] == [120], [c["frames"] for c in calls]
assert calls[1]["trajectories"][0].endswith("iteration_-1_0.xtc"), calls[1]["trajectories"]
t = md.load("init.xtc", top=sys.argv[2])
phi, psi = md.compute_phi(t)[1][:, 0], md.compute_psi(t)[1][:, 0]
def bin_of(x):
    return min(29, max(0, int(math.floor((x + math.pi) / (2 * math.pi) * 30))))
bins = [(bin_of(a), bin_of(b)) for a, b in zip(phi, psi)]
pop = {b: bins.count(b) for b in set(bins)}
assert len(chosen) == 4 and len(set(chosen)) == 4, chosen
picked = {bins[f] for f in chosen}
worst = max(pop[bins[f]] for f in chosen)
assert all(pop[b] >= worst for b in pop if b not in picked), (worst, sorted(pop.values()))
assert chosen != [0, 39, 79, 119], chosen  # not the plain linspace
print("seed frames", chosen, "bin populations", [pop[bins[f]] for f in chosen], "min", min(pop.values()))
PY
export_run seed seed
export_run seed2 seed2
cmp seed.cvs.csv seed2.cvs.csv || fail "seeded reruns differ"
pass "initial_trajectory + project_file: the density spawner picks the seeds from extract_cvs' CVs"

# 9. One long-lived worker per campaign: the probe and every iteration are answered by one Python
# process that imported the module once. Killed (SIGKILL) between iterations — the test hook
# makes the worker kill itself right after its 2nd reply, iteration 0 — it is restarted at the
# next call and the run continues with the same CVs, spawns and shards as the uninterrupted one.
cat > counted.py <<PY
import importlib.util, os
spec = importlib.util.spec_from_file_location("phipsi", "$PHIPSI")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
with open("$WORK/imports.log", "a") as f:
    f.write(f"{os.getpid()}\n")
extract_cvs = m.extract_cvs
PY
alad_config killed.yaml killed "$WORK/counted.py"
rm -f imports.log pids.log
TRAILS_TEST_WORKER_PID_FILE="$WORK/pids.log" TRAILS_TEST_WORKER_DIE_AFTER=2 \
  "$TRAILS" run killed.yaml > killed.out 2>&1 || fail "run with a killed worker: $(cat killed.out)"
grep -q "the Python worker died: killed by signal 9 (SIGKILL); restarting it" killed.out ||
  fail "no restart warning: $(cat killed.out)"
grep -qE "^  python +/usr/bin/python3 \(default; PYTHONPATH and PYTHONHOME cleared\)$" killed.out ||
  fail "the banner does not name the interpreter: $(cat killed.out)"
[ "$(wc -l < pids.log)" -eq 2 ] && [ "$(sort -u pids.log | wc -l)" -eq 2 ] ||
  fail "expected 2 worker processes (the first killed after iteration 0): $(cat pids.log)"
# the module was imported once per worker process (one check process imports it too)
/usr/bin/python3 - <<'PY' || fail "imports per worker"
pids = open("pids.log").read().split()
imports = open("imports.log").read().split()
assert [imports.count(p) for p in pids] == [1, 1] and len(imports) == 3, (pids, imports)
PY
export_run killed killed
cmp pf.cvs.csv killed.cvs.csv || fail "the run with a restarted worker has other CVs"
cmp pf.lineage.csv killed.lineage.csv || fail "the run with a restarted worker spawned differently"
[ "$(checksums pf)" = "$(checksums killed)" ] || fail "the run with a restarted worker has other shards"
pass "one worker per campaign (module imported once); killed between iterations, restarted, same results"

# 10. A worker that dies on every try (here the module kills its own process on the real
# iterations): restarted once, then the runtime error names the file, the iteration and how it
# died; nothing is left (iteration 0 was not committed); the fixed module completes the campaign.
cat > dies.py <<PY
import importlib.util, os, signal, sys
spec = importlib.util.spec_from_file_location("phipsi", "$PHIPSI")
m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
def extract_cvs(trajectories, top_file, conf_file):
    if len(trajectories) > 1:  # not the one-frame probe
        print("about to die", file=sys.stderr, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    return m.extract_cvs(trajectories, top_file, conf_file)
PY
alad_config dies.yaml dies "$WORK/dies.py"
set +e
"$TRAILS" run dies.yaml > dies.out 2>&1
rc=$?
set -e
[ $rc -eq 1 ] || fail "dies: expected a runtime failure (1), got $rc: $(cat dies.out)"
for m in "iteration 0: system.project_file: $WORK/dies.py: the Python worker (/usr/bin/python3" \
  "died: killed by signal 9 (SIGKILL); restarted and retried, it died again: killed by signal 9 (SIGKILL)" \
  "about to die" "iteration 0 was not committed"; do
  grep -qF -- "$m" dies.out || fail "dies: no '$m' in: $(cat dies.out)"
done
[ ! -e dies ] || fail "dies: a run that failed before its first commit left $(find dies)"
cp counted.py dies.py
"$TRAILS" run dies.yaml > dies2.out 2>&1 || fail "dies: the fixed module: $(cat dies2.out)"
export_run dies dies
cmp pf.cvs.csv dies.cvs.csv || fail "dies: the fixed run differs from the good one"
pass "a worker that dies twice: exit 1 naming file, iteration and signal, nothing left; the fixed module runs"

# 11. The interpreter: TRAILS_PYTHON keeps the user's PYTHONPATH (the default clears it), and an
# engine.python that does not exist is an exit-2 error naming it, before anything is written.
mkdir -p pp && echo 'VALUE = 1' > pp/trails_pp_marker.py
printf 'import trails_pp_marker\nfrom counted import extract_cvs\n' > needs_pp.py
alad_config pp.yaml pp.run "$WORK/needs_pp.py"
set +e
PYTHONPATH="$WORK/pp" "$TRAILS" check pp.yaml > pp.default.out 2>&1
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "No module named 'trails_pp_marker'" pp.default.out ||
  fail "the default interpreter should not see PYTHONPATH (exit 2), got $rc: $(cat pp.default.out)"
PYTHONPATH="$WORK/pp" TRAILS_PYTHON=/usr/bin/python3 "$TRAILS" check pp.yaml > pp.env.out 2>&1 ||
  fail "TRAILS_PYTHON with PYTHONPATH: $(cat pp.env.out)"
alad_config badpy.yaml badpy.run "$PHIPSI"
sed -i 's|^  md_engine: openmm$|&\n  python: /nonexistent/bin/python3|' badpy.yaml
for cmd in check run; do
  set +e
  "$TRAILS" "$cmd" badpy.yaml > "badpy.$cmd.out" 2>&1
  rc=$?
  set -e
  [ $rc -eq 2 ] && grep -qF "/nonexistent/bin/python3 (engine.python)" "badpy.$cmd.out" ||
    fail "engine.python missing: trails $cmd: expected exit 2 naming it, got $rc: $(cat "badpy.$cmd.out")"
  [ ! -e badpy.run ] || fail "engine.python missing: trails $cmd left a run directory"
done
pass "TRAILS_PYTHON keeps PYTHONPATH, the default clears it; a missing engine.python is exit 2 naming it"

# 12. CV_NAMES / CV_UNITS (optional module attributes Trails-MD ignores) name the stored columns
# and the axes' units; a list that does not match the columns is an exit-2 error before any MD.
cat > named.py <<PY
from counted import extract_cvs
CV_NAMES = ["phi", "psi"]
CV_UNITS = ("rad", "rad")
PY
alad_config named.yaml named "$WORK/named.py"
sed -i 's/^iterations: 3/iterations: 1/' named.yaml
"$TRAILS" run named.yaml > named.out 2>&1 || fail "run with CV_NAMES: $(cat named.out)"
"$TRAILS" export named --cvs named.csv --cv-names > /dev/null
[ "$(head -1 named.csv)" = "iteration,walker,frame,phi,psi" ] ||
  fail "--cv-names with CV_NAMES: $(head -1 named.csv)"
/usr/bin/python3 - <<'PY' || fail "cv_units not recorded"
import json, sqlite3
meta = dict(sqlite3.connect("named/ledger.sqlite").execute("SELECT key, value FROM meta"))
system = json.loads(meta["engine_system"])
assert system["cv_names"] == ["phi", "psi"] and system["cv_units"] == ["rad", "rad"], system
PY
printf 'from counted import extract_cvs\nCV_NAMES = ["phi", "psi", "omega"]\n' > names3.py
printf 'from counted import extract_cvs\nCV_UNITS = "rad"\n' > unitstr.py
expect_preflight names3 yes "CV_NAMES has 3 entries but extract_cvs returned 2 columns"
expect_preflight unitstr yes "CV_UNITS = 'rad' must be a list of non-empty strings"
pass "CV_NAMES / CV_UNITS name the columns and units; a mismatched list is exit 2 before any MD"
