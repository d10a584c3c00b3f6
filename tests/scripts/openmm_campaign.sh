#!/usr/bin/env bash
# A tiny OpenMM alanine-dipeptide campaign (Reference platform, vacuum, φ/ψ CVs): serial and
# threaded runs are byte-identical; a run killed (SIGKILL) mid-campaign and resumed reproduces the
# uninterrupted one bitwise (shard checksums and exports), restarting from the stored positions
# (the default 0.001 nm grid, output.position_precision); the CVs in the ledger match mdtraj's
# compute_phi/psi on the stored frames; the ledger records where walkers ran and status shows it.
source "$(dirname "$0")/lib/common.bash"
export PYTHONPATH="$ROOT/share/trails/python"  # trails_run.shard_positions decodes the grid

checksums() { sqlite3 "$1/ledger.sqlite" "SELECT iteration, shard_checksum FROM iterations ORDER BY iteration"; }

alad_config threads.yaml threads 2
alad_config serial.yaml serial 1
"$TRAILS" run threads.yaml > threads.out 2>&1 || fail "threaded run: $(cat threads.out)"
"$TRAILS" run serial.yaml > serial.out 2>&1 || fail "serial run: $(cat serial.out)"
export_run threads threads
export_run serial serial
cmp threads.cvs.csv serial.cvs.csv || fail "serial and threaded CV exports differ"
cmp threads.lineage.csv serial.lineage.csv || fail "serial and threaded lineage exports differ"
[ "$(checksums threads)" = "$(checksums serial)" ] || fail "serial and threaded shards differ"
[ "$(grep -vc '^#' threads.cvs.csv)" -eq $((3 * 4 * 10 + 1)) ] || fail "frame count in the export"
pass "serial and threaded OpenMM campaigns are byte-identical"

# Killed after iteration 1 committed, then resumed: restarts come from the shards.
alad_config crash.yaml crash 2
set +e
TRAILS_CRASH_AT=after-commit:1 "$TRAILS" run crash.yaml > crash.out 2>&1
rc=$?
set -e
[ $rc -eq 137 ] || fail "expected death by SIGKILL (137), got $rc: $(cat crash.out)"
[ "$(committed crash)" -eq 2 ] || fail "2 iterations should be committed after the crash"
"$TRAILS" run crash.yaml --resume > resume.out 2>&1 || fail "resume: $(cat resume.out)"
export_run crash crash
cmp threads.cvs.csv crash.cvs.csv || fail "resumed CV export differs from the uninterrupted run"
[ "$(checksums threads)" = "$(checksums crash)" ] || fail "resumed shards differ"
pass "kill -9 and resume reproduce the uninterrupted OpenMM campaign bitwise"

# φ/ψ in the ledger against mdtraj on the stored frames (the frames the CVs were computed from).
/usr/bin/python3 - threads <<'PY' || fail "phi/psi differ from mdtraj"
import glob, sys, h5py, numpy as np, mdtraj as md
from trails_run import shard_positions
run = sys.argv[1]
top = md.load(glob.glob(f"{run}/prepared/*/topology.pdb")[0]).topology
worst = 0.0
for shard in sorted(glob.glob(f"{run}/shards/iter_*.h5")):
    with h5py.File(shard, "r") as f:
        xyz = shard_positions(f)
        cvs = f["observables/cvs/value"][...]
        assert "edges" not in f["particles/walkers/box"], "vacuum system has no box"
    t = md.Trajectory(xyz.astype(np.float64), top)
    _, phi = md.compute_phi(t)
    _, psi = md.compute_psi(t)
    ref = np.column_stack([phi[:, 0], psi[:, 0]])
    d = np.abs(np.angle(np.exp(1j * (ref - cvs))))
    worst = max(worst, d.max())
print("max |dphi/dpsi| vs mdtraj:", worst)
sys.exit(0 if worst < 1e-4 else 1)
PY
pass "phi/psi CVs agree with mdtraj compute_phi/psi"

n=$(sqlite3 threads/ledger.sqlite "SELECT count(*) FROM walkers WHERE platform = 'Reference' AND host != ''")
[ "$n" -eq 12 ] || fail "walkers table should record platform and host of all 12 walkers, got $n"
"$TRAILS" status threads | matches "ran on          Reference" || fail "status does not show where walkers ran"
sqlite3 threads/ledger.sqlite "SELECT DISTINCT dt FROM iterations" | matches -x "0.002" || fail "iteration dt is not the engine's 0.002 ps"
pass "ledger records placement and dt; status shows them"

# Trajectory export: every format opens in mdtraj and MDAnalysis with the stored frames.
for ext in xtc dcd pdb; do
  "$TRAILS" export threads --trajectory "all.$ext" > /dev/null || fail "export --trajectory all.$ext"
done
"$TRAILS" export threads --trajectory it1w2.xtc --iteration 1 --walker 2 > /dev/null || fail "export one walker"
/usr/bin/python3 - threads <<'PY' || fail "exported trajectories do not match the shards"
import glob, sys, warnings, h5py, numpy as np, mdtraj as md
from trails_run import shard_positions
warnings.filterwarnings("ignore")
import MDAnalysis as mda
run = sys.argv[1]
top = glob.glob(f"{run}/prepared/*/topology.pdb")[0]
xyz, cvs = [], []
for shard in sorted(glob.glob(f"{run}/shards/iter_*.h5")):
    with h5py.File(shard, "r") as f:
        xyz.append(shard_positions(f))
        cvs.append(f["observables/cvs/value"][...])
        if shard.endswith("iter_000001.h5"):
            w = f["observables/walker/value"][...]
            one = shard_positions(f)[w == 2]
xyz, cvs = np.concatenate(xyz), np.concatenate(cvs)
tol = {"xtc": 6e-4, "dcd": 1e-5, "pdb": 6e-5}  # nm: XTC 0.001 nm grid, DCD float32 Å, PDB 0.001 Å
for ext in ("xtc", "dcd", "pdb"):
    t = md.load(f"all.{ext}", top=top)
    assert t.n_frames == len(xyz), (ext, t.n_frames, len(xyz))
    err = np.abs(t.xyz - xyz).max()
    assert err < tol[ext], (ext, "mdtraj", err)
    u = mda.Universe(top, f"all.{ext}")
    assert len(u.trajectory) == len(xyz), (ext, len(u.trajectory))
    err = max(np.abs(ts.positions / 10.0 - xyz[i]).max() for i, ts in enumerate(u.trajectory))
    assert err < tol[ext], (ext, "MDAnalysis", err)
t = md.load("it1w2.xtc", top=top)
assert t.n_frames == len(one) and np.abs(t.xyz - one).max() < 6e-4
# phi/psi recomputed by mdtraj on the exported XTC agree with the ledger CVs to XTC precision.
t = md.load("all.xtc", top=top)
ref = np.column_stack([md.compute_phi(t)[1][:, 0], md.compute_psi(t)[1][:, 0]])
d = np.abs(np.angle(np.exp(1j * (ref - cvs)))).max()
# 0.0005 nm per coordinate on ~0.1-0.15 nm bonds moves a dihedral by up to a few 0.01 rad.
assert d < 0.05 and np.abs(np.angle(np.exp(1j * (ref - cvs)))).mean() < 5e-3, ("phi/psi on the XTC", d)
print("ok", len(xyz), "frames; phi/psi on XTC within", d)
PY
pass "exported XTC/DCD/PDB open in mdtraj and MDAnalysis with the stored frames"

# The sidecar OUT.json names every written frame (key, iteration, walker, frame, step, time) in
# the CV export's order; times are walker-local: a segment starts at its parent frame's time
# (computed here from the ledger's parent_key, stride and dt) and the XTC carries the same times.
/usr/bin/python3 - threads <<'PY' || fail "trajectory sidecar or walker-local times wrong"
import csv, json, sqlite3, sys, warnings
import numpy as np, mdtraj as md
warnings.filterwarnings("ignore")
run = sys.argv[1]
db = sqlite3.connect(f"file:{run}/ledger.sqlite?mode=ro", uri=True)
clock = dict((i, (s, d)) for i, s, d in db.execute("SELECT iteration, stride, dt FROM iterations"))
start = {}
for it, w, parent in db.execute(
        "SELECT iteration, walker, parent_key FROM walkers WHERE ok ORDER BY iteration, walker"):
    if parent is None:
        start[(it, w)] = (0.0, 0)
    else:
        pi, pw, pf = map(int, parent.split(":"))
        (t, n), (s, d) = start[(pi, pw)], clock[pi]
        start[(it, w)] = (t + float((pf + 1) * s) * d, n + (pf + 1) * s)
def expected(it, w, f):
    (t, n), (s, d) = start[(it, w)], clock[it]
    return t + float((f + 1) * s) * d, n + (f + 1) * s
rows = [(int(r["iteration"]), int(r["walker"]), int(r["frame"]))
        for r in csv.DictReader(open("threads.cvs.csv"))]
car = json.load(open("all.xtc.json"))
assert car["trajectory"] == "all.xtc" and car["time_unit"] == "ps", car.keys()
assert car["n_frames"] == len(rows) == len(car["frames"]) == 120, car["n_frames"]
for k, (fr, (it, w, f)) in enumerate(zip(car["frames"], rows)):
    t, step = expected(it, w, f)
    assert fr == {"index": k, "key": f"{it}:{w}:{f}", "iteration": it, "walker": w, "frame": f,
                  "step": step, "time": t}, (fr, t, step)
assert [s["first_index"] for s in car["segments"]] == list(range(0, 120, 10)), car["segments"]
seg = car["segments"][4]  # iteration 1, walker 0: starts at its parent's time, not at 0
assert seg["iteration"] == 1 and seg["parent"] is not None and seg["start_time"] > 0, seg
pi, pw, pf = map(int, seg["parent"].split(":"))
assert seg["start_time"] == expected(pi, pw, pf)[0], seg
for other in ("dcd", "pdb"):
    assert json.load(open(f"all.{other}.json"))["frames"] == car["frames"], other
import glob
top = glob.glob(f"{run}/prepared/*/topology.pdb")[0]
xtc = md.load("all.xtc", top=top)
assert np.array_equal(xtc.time, np.array([fr["time"] for fr in car["frames"]], np.float32)), xtc.time[:12]
one = json.load(open("it1w2.xtc.json"))
assert [fr["key"] for fr in one["frames"]] == [f"1:2:{f}" for f in range(10)], one["frames"][:2]
assert [fr["time"] for fr in one["frames"]] == [expected(1, 2, f)[0] for f in range(10)]
assert np.array_equal(md.load("it1w2.xtc", top=top).time,
                      np.array([fr["time"] for fr in one["frames"]], np.float32))
print("ok: sidecar of", car["n_frames"], "frames; iteration 1 walker 0 starts at", seg["start_time"], "ps")
PY
mkdir taken.xtc.json
EXPECT_STREAMS=err.txt expect_exit 2 "sidecar over a directory" "taken.xtc.json" \
  "$TRAILS" export threads --trajectory taken.xtc
EXPECT_STREAMS=err.txt expect_exit 2 "sidecar named twice" "same file" \
  "$TRAILS" export threads --trajectory same.xtc --cvs same.xtc.json
[ ! -e taken.xtc ] && [ ! -e same.xtc ] && [ ! -e same.xtc.json ] || fail "a refused trajectory export wrote a file"
# CV names: the run's cvs: block, in the stored column order.
"$TRAILS" export threads --cvs named.csv --cv-names > /dev/null
head -1 named.csv | matches -x "iteration,walker,frame,phi,psi" || fail "--cv-names header: $(head -1 named.csv)"
"$TRAILS" export threads --cvs it2w1.csv --iteration 2 --walker 1 > /dev/null
{ head -1 threads.cvs.csv; grep '^2,1,' threads.cvs.csv; } | cmp - it2w1.csv || fail "--cvs --iteration 2 --walker 1"
pass "trajectory sidecar, walker-local times, --cv-names and --cvs selection on an OpenMM run"

# The Python reader on the same run: frames in nm equal the shards, to_mdtraj equals the
# exported trajectory's times, cv_names from the cvs: block.
PYTHONPATH="$ROOT/share/trails/python" /usr/bin/python3 - threads <<'PY' || fail "Python reader on the OpenMM run"
import glob, json, sys, h5py, numpy as np
from trails_run import Run, shard_positions
run = Run(sys.argv[1])
assert run.iterations == [0, 1, 2] and run.cv_names == ["phi", "psi"], (run.iterations, run.cv_names)
with h5py.File(f"{sys.argv[1]}/shards/iter_000001.h5", "r") as f:
    w = f["observables/walker/value"][...]
    stored = shard_positions(f)[w == 2]
xyz = run.frames(1, 2)
assert xyz.shape == (10, 22, 3) and np.array_equal(xyz, stored), xyz.shape
t = run.to_mdtraj()
car = json.load(open("all.xtc.json"))
assert t.n_frames == 120 and t.n_atoms == 22
assert list(t.time) == [fr["time"] for fr in car["frames"]], t.time[:12]  # the sidecar times
assert np.array_equal(t.xyz[40:50], run.frames(1, 0).astype(np.float32))
print("ok")
PY
pass "Python reader reads the OpenMM run's frames, times and CV names"

# The results commands on the demo's system (alanine dipeptide φ/ψ) with an in-loop MSM: every
# picture is a complete PNG, the axes are in degrees and physical time, and `trails report`
# embeds every picture of plot and analyze (the browser check is in html_report.sh).
alad_config almsm.yaml almsm 2
sed -i 's/^iterations: 3/iterations: 4/' almsm.yaml
printf 'msm:\n  enabled: true\n  min_frames: 60\n  n_microstates: 8\n  lagtime: 1\n  lagtimes: [1, 2, 3]\n' >> almsm.yaml
"$TRAILS" run almsm.yaml > almsm.out 2>&1 || fail "alanine MSM run: $(cat almsm.out)"
"$TRAILS" plot almsm -o alplots > alplot.out || fail "plot: $(cat alplot.out)"
for f in coverage occupancy fes fes_msm convergence its timescales; do
  grep -q "^wrote alplots/$f.png$" alplot.out || fail "plot did not draw $f.png: $(cat alplot.out)"
done
mkdir alanalysis
"$TRAILS" analyze almsm --outfile alanalysis/convergence_report.png --json alanalysis/a.json > /dev/null ||
  fail "analyze on the alanine run"
"$TRAILS" report almsm > alreport.out || fail "report: $(cat alreport.out)"
/usr/bin/python3 - almsm/report/index.html alplots alanalysis <<'PY' || fail "alanine pictures or report"
import base64, io, json, os, re, sys
from PIL import Image
page = open(sys.argv[1], encoding="utf-8").read()
prefix = "data:image/png;base64,"
embedded = sorted(base64.b64decode(s[len(prefix):]) for s in re.findall(r'<img src="([^"]*)"', page))
drawn = sorted(open(os.path.join(d, f), "rb").read()
               for d in sys.argv[2:] for f in os.listdir(d) if f.endswith(".png"))
assert embedded == drawn and len(drawn) >= 8, (len(embedded), len(drawn))
for png in drawn:
    Image.open(io.BytesIO(png)).load()  # every picture decodes
# The engine row names the run's own system, never the built-in potential's default name, and
# its free energies are in kJ/mol at the engine's 300 K.
import html
text = html.unescape(page)
row = re.search(r"<th>engine</th><td>([^<]*)</td>", page)
assert row and "muller_brown" not in row.group(1) and "potential" not in row.group(1), row and row.group(1)
row = html.unescape(row.group(1))
assert row.startswith("openmm (conf_file ") and "alanine-dipeptide.pdb" in row, row
assert "platform Reference requested" in row and "ran on Reference" in row and "300 K, NVT" in row, row
assert "22 atoms, dt 0.002 ps" in row, row
assert "kJ/mol at T = 300 K" in text and "reduced units" not in text
a = json.load(open(os.path.join(sys.argv[3], "a.json")))
assert a["energy_unit"] == "kJ/mol" and a["temperature_k"] == 300.0, (a["energy_unit"], a["temperature_k"])
# stride 20 × dt 0.002 ps: timescales in physical time
assert abs(a["time"]["frame_ps"] - 0.04) < 1e-12 and a["time"]["unit"] in ("fs", "ps"), a["time"]
assert a["builds_with_model"] >= 1, a["builds_with_model"]
print("ok")
PY
pass "plot, analyze and report on the alanine φ/ψ campaign with an MSM: every picture drawn and embedded"

# trails log and trails reweight on the same OpenMM run: log re-bins the stored φ/ψ on a grid of
# its own (rows = iterations, frames = the shards'), leaving the run's output.log as it was;
# reweight writes frame weights beside the run that sum to 1 over exactly the exported frames,
# and plot --weights draws the reweighted free energy from them.
sha_before=$(sha256sum almsm/output.log)
"$TRAILS" log almsm --n-bins 6 --min-values -3.14159,-3.14159 --max-values 3.14159,3.14159 \
  > almsm.log.tsv || fail "trails log on the OpenMM run: $(cat almsm.log.tsv)"
[ "$(sha256sum almsm/output.log)" = "$sha_before" ] || fail "trails log changed the run's output.log"
"$TRAILS" export almsm --cvs almsm.cvs.csv > /dev/null
"$TRAILS" reweight almsm --iterations 200 --average-last 50 > almsm.rw.out 2>&1 ||
  fail "reweight on the OpenMM run: $(cat almsm.rw.out)"
[ -f almsm.weights.csv ] && [ ! -e almsm/almsm.weights.csv ] || fail "reweight's weights not beside the run"
/usr/bin/python3 - almsm.log.tsv almsm.cvs.csv almsm.weights.csv <<'PY' || fail "log/reweight on the OpenMM run"
import sys
import numpy as np
rows = [l.split("\t") for l in open(sys.argv[1]).read().splitlines() if not l.startswith("#")]
assert rows[0][:3] == ["iteration", "frames", "cumulative_frames"], rows[0]
cv = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1)
its = sorted(set(cv[:, 0].astype(int)))
assert [int(r[0]) for r in rows[1:]] == its, (rows, its)
assert [int(r[1]) for r in rows[1:]] == [int((cv[:, 0] == i).sum()) for i in its]
assert int(rows[-1][4]) <= 36 and rows[-1][5] == "36", rows[-1]
w = np.loadtxt(sys.argv[3], delimiter=",", skiprows=2)
assert (w[:, :3] == cv[:, :3]).all() and abs(w[:, 3].sum() - 1) < 1e-9 and (w[:, 3] >= 0).all()
print("ok")
PY
"$TRAILS" plot almsm -o rwplots --weights almsm.weights.csv > rwplot.out 2>&1 ||
  fail "plot --weights on the OpenMM run: $(cat rwplot.out)"
grep -q "^wrote rwplots/fes.png$" rwplot.out || fail "no reweighted fes.png: $(cat rwplot.out)"
pass "trails log and trails reweight on an OpenMM run: the table from its frames, weights beside it, plot --weights"

write_config mb.yaml mb
"$TRAILS" run mb.yaml --iterations 1 > /dev/null
set +e
"$TRAILS" export mb --trajectory mb.xtc 2> mb.err
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "use.*--cvs\|with --cvs" mb.err && [ ! -e mb.xtc ] || fail "builtin export --trajectory should be refused (rc $rc: $(cat mb.err))"
pass "built-in runs refuse --trajectory with a pointer to --cvs"

# A periodic system (solvated, PME, CPU platform): per-frame boxes are stored, restarts after a
# kill -9 read positions and box from the shards, and the resumed run is bitwise the same.
SOLV="$ROOT/examples/alanine-dipeptide/solvated/alanine-dipeptide-solvated.pdb"
solv_config() {  # FILE OUTDIR
  cat > "$1" <<YAML
outdir: $2
random_seed: 5
iterations: 3
cvs:
  - {name: phi, kind: phi, resid: 2}
  - {name: psi, kind: psi, resid: 2}
n_bins: [30, 30]
min_values: [-3.141592653589793, -3.141592653589793]
max_values: [3.141592653589793, 3.141592653589793]
system:
  conf_file: $SOLV
  forcefield: [amber14-all.xml, amber14/tip3p.xml]
engine:
  md_engine: openmm
  platform_name: CPU
spawning:
  walker: 2
  step: 20
  stride: 10
  max_workers: 2
  spawn_scheme: density
YAML
}
export OPENMM_CPU_THREADS=1  # one thread per walker: deterministic and light on shared cores
solv_config solv.yaml solv
solv_config solvcrash.yaml solvcrash
"$TRAILS" run solv.yaml > solv.out 2>&1 || fail "solvated run: $(cat solv.out)"
set +e
TRAILS_CRASH_AT=after-commit:0 "$TRAILS" run solvcrash.yaml > solvcrash.out 2>&1
rc=$?
set -e
[ $rc -eq 137 ] || fail "solvated crash: expected 137, got $rc: $(cat solvcrash.out)"
"$TRAILS" run solvcrash.yaml --resume > solvresume.out 2>&1 || fail "solvated resume: $(cat solvresume.out)"
[ "$(checksums solv)" = "$(checksums solvcrash)" ] || fail "resumed periodic run differs"
"$TRAILS" export solv --trajectory solv.xtc > /dev/null
/usr/bin/python3 - solv <<'PY' || fail "box edges or exported unit cell wrong"
import glob, sys, h5py, numpy as np, mdtraj as md
run = sys.argv[1]
with h5py.File(f"{run}/shards/iter_000002.h5", "r") as f:
    box = f["particles/walkers/box"]
    assert list(box.attrs["boundary"]) == [b"periodic"] * 3
    edges = box["edges/value"][...]
    assert edges.shape == (4, 3, 3) and abs(edges[0, 0, 0] - 2.7648) < 1e-6
t = md.load("solv.xtc", top=glob.glob(f"{run}/prepared/*/topology.pdb")[0])
assert t.n_frames == 12 and np.allclose(t.unitcell_vectors[0], edges[0], atol=1e-3)
PY
pass "periodic system: per-frame boxes stored, kill/resume bitwise, box exported"

# system.initial_trajectory (compat:initial-trajectory): 120 exported frames seed 4 walkers at
# linspace frames 0, 39, 79, 119; each walker's first stored frame (20 steps later) lies next to its
# seed frame.
alad_config seeded.yaml seeded 2
sed -i "s|^  conf_file: .*|&\n  initial_trajectory: $WORK/all.xtc|" seeded.yaml
sed -i "s|^iterations: 3|iterations: 1|" seeded.yaml
"$TRAILS" run seeded.yaml > seeded.out 2>&1 || fail "seeded run: $(cat seeded.out)"
/usr/bin/python3 - <<'PY' || fail "walkers did not start from the linspace frames of initial_trajectory"
import glob, h5py, numpy as np, mdtraj as md
from trails_run import shard_positions
t = md.load("all.xtc", top=glob.glob("seeded/prepared/*/topology.pdb")[0])
with h5py.File("seeded/shards/iter_000000.h5", "r") as f:
    xyz = shard_positions(f)
for w, seed in enumerate([0, 39, 79, 119]):
    first = xyz[w * 10]
    d = np.sqrt(((t.xyz - first) ** 2).sum(-1).mean(-1))  # no-fit RMSD to every frame, nm
    # 40 fs of thermal motion: ~0.03 nm; the seed frame is among the two nearest of all 120
    # (its neighbour in time may be nearer), frames of other segments are >= 0.06 nm away.
    assert d[seed] < 0.05 and seed in np.argsort(d)[:2], (w, seed, d[seed], np.argsort(d)[:4])
print("seeded walkers start at their linspace frames")
PY
pass "system.initial_trajectory seeds the first walkers (linspace frames)"

# Bad CV blocks are exit-2 errors naming the problem, and leave no run directory behind.
alad_config badbins.yaml badbins 2
sed -i 's/^n_bins: \[30, 30\]/n_bins: [30, 30, 30]/; s/^min_values: \[/min_values: [0, /; s/^max_values: \[/max_values: [1, /' badbins.yaml
alad_config badres.yaml badres 2
sed -i 's/kind: psi, resid: 2/kind: psi, resid: 9/' badres.yaml
for c in "badbins:n_bins has 3 entries but the CVs give 2 columns" "badres:no residue with resid 9"; do
  name=${c%%:*}
  set +e
  "$TRAILS" run "$name.yaml" > "$name.out" 2>&1
  rc=$?
  set -e
  [ $rc -eq 2 ] && grep -q "${c#*:}" "$name.out" || fail "$name: expected exit 2 with '${c#*:}', got $rc: $(cat "$name.out")"
  [ ! -e "$name" ] || fail "$name: a bad CV block left a run directory behind"
done
pass "bad cvs blocks: exit 2, clear message, nothing written"

# Resume guards on an OpenMM run (docs/reliability.md): a refused resume (a CV changed) writes
# nothing, prepared/ included; an edited prepared system.xml is refused as corruption; engine.dt
# may change on resume and is recorded.
cp -r threads guarded
sed 's/^outdir: threads/outdir: guarded/' threads.yaml > guarded.yaml
sed 's/kind: psi, resid: 2/kind: psi, resid: 3/' guarded.yaml > guarded-cv.yaml
before=$(snapshot guarded)
expect_exit 2 "resume with a changed CV" "cvs:" "$TRAILS" run guarded-cv.yaml --iterations 4 --resume
[ "$before" = "$(snapshot guarded)" ] || fail "a refused OpenMM resume changed the run directory"
cp -r guarded edited
sed 's/^outdir: guarded/outdir: edited/' guarded.yaml > edited.yaml
echo "<!-- edited -->" >> edited/prepared/*/system.xml
expect_exit 1 "resume with an edited system.xml" "system.xml" "$TRAILS" run edited.yaml --iterations 4 --resume
grep -q "changed" err.txt || fail "the message does not say the file was changed: $(cat err.txt)"
sed 's/^  dt: 0.002/  dt: 0.001/' guarded.yaml > guarded-dt.yaml
"$TRAILS" run guarded-dt.yaml --iterations 4 --resume > guarded-dt.out 2>&1 ||
  fail "resume with engine.dt 0.001: $(cat guarded-dt.out)"
[ "$(sqlite3 guarded/ledger.sqlite "SELECT iteration, key, after FROM config_changes")" = "3|engine.dt|0.001" ] ||
  fail "the dt change is not recorded"
[ "$(sqlite3 guarded/ledger.sqlite "SELECT dt FROM iterations WHERE iteration = 3")" = "0.001" ] ||
  fail "iteration 3 does not record dt 0.001"
pass "OpenMM resume: a refused change writes nothing, an edited system.xml is refused, dt may change"

# A platform that is not there (CUDA on this machine): a warning, and the banner and the ledger
# name the platform actually used, not the one asked for.
alad_config fallback.yaml fallback 2
sed -i 's/^  platform_name: Reference/  platform_name: CUDA/; s/^iterations: 3/iterations: 1/' fallback.yaml
"$TRAILS" run fallback.yaml > fallback.out 2>&1 || fail "run with an unavailable platform: $(cat fallback.out)"
used=$(sqlite3 fallback/ledger.sqlite "SELECT DISTINCT platform FROM walkers")
if grep -q "OpenMM platform CUDA is not available on this machine" fallback.out; then
  [ "$used" = CPU ] || [ "$used" = Reference ] || fail "walkers ran on '$used' after the fallback"
  grep "^  engine" fallback.out | matches CUDA && fail "the banner still names CUDA"
else  # a machine with OpenMM's CUDA platform: no fallback, and the same consistency
  [ "$used" = CUDA ] || fail "no fallback warning, but walkers ran on '$used'"
fi
grep -q "^  engine      openmm (22 atoms, $used platform" fallback.out || fail "the banner does not name $used: $(cat fallback.out)"
pass "after a platform fallback the banner and the ledger name the platform used ($used)"
