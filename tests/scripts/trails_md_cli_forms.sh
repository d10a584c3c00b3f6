#!/usr/bin/env bash
# Trails-MD users' habits on a built-in Müller–Brown run (docs/trails-md-compatibility.md,
# "Post-processing flags", "Checking an existing run"): `trails log`, `trails path` and `trails
# analyze` spelt with Trails-MD's flags (--run-dir, --pairs-file, ...) give exactly what the
# positional forms give, and the flags without meaning in Trails (--config, --topology,
# --checkpoint, --ignore-missing-history, --append) are accepted with a note each; `trails check`
# of a configuration whose run exists checks it read-only (the run directory is unchanged) and
# says so; a Trails-MD convergence_criteria list passes `trails check`.
source "$(dirname "$0")/lib/common.bash"
write_config cfg.yaml run
"$TRAILS" run cfg.yaml --iterations 3 > run.out || fail "run failed: $(cat run.out)"

# log: positional vs Trails-MD's flags, same table.
"$TRAILS" log run --n-bins 10,10 --min-values -1.5,-0.5 --max-values 1.2,2.0 > log1.txt ||
  fail "log positional"
"$TRAILS" log --run-dir run --config cfg.yaml --n-bins 10,10 --min-values -1.5,-0.5 \
  --max-values 1.2,2.0 --append > log2.txt 2> log2.err || fail "log --run-dir: $(cat log2.err)"
cmp log1.txt log2.txt || fail "log --run-dir differs from log RUN_DIR"
grep -q "note: --config has no effect: Trails reads the run's own configuration" log2.err ||
  fail "no --config note: $(cat log2.err)"
grep -q "note: --append has no effect" log2.err || fail "no --append note: $(cat log2.err)"
expect_exit 2 "log without a run" "the run directory: RUN_DIR or --run-dir DIR" "$TRAILS" log
pass "trails log takes --run-dir, --config and --append (noted) and prints the same table"

# path: one pair and a batch, Trails-MD's flags beside the positional form; the ends are the
# first and last frame of walker 0 in iteration 0 (one lineage).
"$TRAILS" export run --cvs ends.csv > /dev/null || fail "export for the path ends"
read -r START END < <(/usr/bin/python3 -c '
import csv
rows = [r for r in list(csv.reader(open("ends.csv")))[1:] if r[0] == "0" and r[1] == "0"]
print(",".join(rows[0][3:]), ",".join(rows[-1][3:]))')
"$TRAILS" path run --start "$START" --end "$END" --metadata p1.json > /dev/null || fail "path positional"
"$TRAILS" path --run-dir run --start "$START" --end "$END" --metadata p2.json --topology x.pdb \
  --checkpoint latest --ignore-missing-history > /dev/null 2> path.err || fail "path --run-dir: $(cat path.err)"
cmp p1.json p2.json || fail "path --run-dir differs from path RUN_DIR"
for flag in --topology --checkpoint --ignore-missing-history; do
  grep -q "note: $flag has no effect" path.err || fail "no $flag note: $(cat path.err)"
done
printf '[{"name": "ab", "start": [%s], "end": [%s]}]\n' "$START" "$END" > pairs.json
"$TRAILS" path --run-dir run --pairs-file pairs.json --output-dir batch > /dev/null || fail "path --pairs-file"
[ -s batch/paths_summary.json ] || fail "no batch summary: $(ls batch)"
pass "trails path takes --run-dir, --pairs-file and Trails-MD's meaningless flags (noted)"

# analyze: the same report either way (a run without MSM builds: its histogram free energy; the
# same --temperature in both, since it sets the energy unit: docs/analysis.md).
set +e
"$TRAILS" analyze run --outfile a1.png --temperature 300 > a1.txt 2>&1; rc1=$?
"$TRAILS" analyze --run-dir run --outfile a2.png --config cfg.yaml --temperature 300 \
  --discard-fraction 0.5 > a2.txt 2> a2.err; rc2=$?
set -e
[ "$rc1" -eq "$rc2" ] || fail "analyze exit $rc1 vs $rc2"
grep -q "note: --config has no effect" a2.err || fail "no analyze --config note: $(cat a2.err)"
diff <(sed 's/a1.png/X/g' a1.txt) <(sed 's/a2.png/X/g' a2.txt) > /dev/null || fail "analyze outputs differ"
pass "trails analyze takes --run-dir and --config (noted)"

# check of a configuration whose run exists: read-only, said in a note.
before=$(find run -type f -printf '%p %s %T@\n' | sort | md5sum)
"$TRAILS" check cfg.yaml > check.out 2>&1 || fail "check of an existing run: $(cat check.out)"
grep -q "already holds a run: checked as its continuation, read-only" check.out || fail "$(cat check.out)"
[ "$before" = "$(find run -type f -printf '%p %s %T@\n' | sort | md5sum)" ] || fail "check changed the run"
sed 's/^random_seed: 7/random_seed: 8/' cfg.yaml > changed.yaml
expect_exit 2 "check of a changed config" "random_seed" "$TRAILS" check changed.yaml
pass "trails check of an existing run checks it read-only; a changed seed is refused"

# msm.convergence_criteria as Trails-MD's template writes it (a list of {name, params}).
write_config msm.yaml msmrun
cat >> msm.yaml <<'YAML'
msm:
  enabled: true
  lagtime: 2
  convergence_criteria:
    - name: implied_timescales
      params: {tol: 0.1, n_timescales: 2}
    - name: vamp2
      params: {tol: 0.05}
YAML
"$TRAILS" check msm.yaml > msm.out 2>&1 || fail "criteria list: $(cat msm.out)"
pass "a Trails-MD convergence_criteria list passes trails check"

# Trails-MD's output layout: `trails export RUN --trails-md-layout DIR`. A built-in run gives
# iter_N/cvs.npz (key cvs, Trails-MD's walker-major rows) and output.log; an OpenMM run also one
# iteration_N_W.xtc per ok walker, which a Trails-MD user's glob finds and mdtraj reads.
"$TRAILS" export run --cvs run.cvs.csv > /dev/null || fail "export --cvs"
"$TRAILS" export run --trails-md-layout tmd > layout.out 2>&1 || fail "layout: $(cat layout.out)"
cmp run/output.log tmd/output.log || fail "layout output.log differs from the run's"
/usr/bin/python3 - <<'PY' || fail "cvs.npz differs from the export"
import csv, glob
import numpy as np
rows = list(csv.reader(open("run.cvs.csv")))[1:]
for it in range(3):
    want = np.array([[float(v) for v in r[3:]] for r in rows if int(r[0]) == it])
    got = np.load(f"tmd/iter_{it}/cvs.npz")["cvs"]
    assert got.shape == want.shape and np.array_equal(got, want), (it, got.shape, want.shape)
assert sorted(glob.glob("tmd/iter_*")) == ["tmd/iter_0", "tmd/iter_1", "tmd/iter_2"]
assert not glob.glob("tmd/iter_*/iteration_*_*.xtc")  # a built-in run has no atoms
assert not glob.glob("tmd/iter_*/features.npz")  # nor feature rows
PY
expect_exit 2 "layout into a used directory" "exists and is not an empty directory" \
  "$TRAILS" export run --trails-md-layout tmd
expect_exit 2 "layout inside the run" "lies inside the run" "$TRAILS" export run --trails-md-layout run/tmd
[ ! -e run/tmd ] || fail "a refused layout wrote into the run"

export OPENMM_CPU_THREADS=1
cp "$ROOT/examples/alanine-dipeptide/alanine-dipeptide.pdb" .
sed -e 's#^outdir: .*#outdir: ala#' -e 's#^iterations: .*#iterations: 2#' -e 's#walker: 8#walker: 3#' \
  -e 's#step: 5000 .*#step: 40#' -e 's#stride: 250 .*#stride: 10#' \
  "$ROOT/examples/alanine-dipeptide/config.yaml" > ala.yaml
"$TRAILS" run ala.yaml > ala.out 2>&1 || fail "alanine run: $(cat ala.out)"
"$TRAILS" export ala --trails-md-layout ala-tmd > /dev/null || fail "OpenMM layout"
"$TRAILS" export ala --trajectory all.xtc > /dev/null || fail "export --trajectory"
/usr/bin/python3 - <<'PY' || fail "the walkers' XTC files differ from the run's frames"
import glob, warnings
import numpy as np, mdtraj as md
warnings.filterwarnings("ignore")
files = sorted(glob.glob("ala-tmd/iter_*/iteration_*_*.xtc"))
assert len(files) == 6, files
top = "alanine-dipeptide.pdb"
every = md.load("all.xtc", top=top)
parts = [md.load(f"ala-tmd/iter_{i}/iteration_{i}_{w}.xtc", top=top) for i in range(2) for w in range(3)]
assert all(p.n_frames == 4 for p in parts)
assert np.array_equal(np.concatenate([p.xyz for p in parts]), every.xyz)
for i in range(2):
    assert np.load(f"ala-tmd/iter_{i}/cvs.npz")["cvs"].shape == (12, 2)
PY
pass "trails export --trails-md-layout: iter_N/iteration_N_W.xtc, iter_N/cvs.npz, output.log"

# A learned space with save_features: true also gets iter_N/features.npz (key features), its rows
# those of cvs.npz: each walker's heavy-atom distances (Å) of its XTC frames, walker-major.
sed -e 's#^outdir: .*#outdir: tica#' -e 's#^iterations: .*#iterations: 2#' -e 's#walker: 8#walker: 3#' \
  -e 's#step: 5000 .*#step: 40#' -e 's#stride: 250 .*#stride: 10#' \
  "$ROOT/examples/alanine-dipeptide/config-tica.yaml" > tica.yaml
"$TRAILS" run tica.yaml > tica.out 2>&1 || fail "TICA run: $(cat tica.out)"
"$TRAILS" export tica --trails-md-layout tica-tmd > tica-layout.out || fail "TICA layout"
/usr/bin/python3 - <<'PY' || fail "features.npz is not the walkers' feature rows in Trails-MD's order"
import glob, itertools, warnings
import h5py, numpy as np, mdtraj as md
warnings.filterwarnings("ignore")
top = md.load("alanine-dipeptide.pdb").topology
heavy = [a.index for a in top.atoms if a.element.symbol != "H"]
pairs = np.array(list(itertools.combinations(heavy, 2)))
for i in range(2):
    with np.load(f"tica-tmd/iter_{i}/features.npz") as z:
        assert list(z.keys()) == ["features"], list(z.keys())
        got = z["features"]
    cvs = np.load(f"tica-tmd/iter_{i}/cvs.npz")["cvs"]
    assert got.shape == (cvs.shape[0], 45), (got.shape, cvs.shape)
    with h5py.File(f"tica/shards/iter_{i:06d}.h5", "r") as f:
        assert np.array_equal(got, f["observables/features/value"][...])
    walkers = [md.load(f"tica-tmd/iter_{i}/iteration_{i}_{w}.xtc", top=top) for w in range(3)]
    want = np.concatenate([md.compute_distances(t, pairs, periodic=False) * 10.0 for t in walkers])
    assert np.abs(want - got).max() < 0.05, np.abs(want - got).max()  # XTC keeps 0.001 nm
PY
grep -qF "2 features.npz" tica-layout.out || fail "the layout does not count features.npz: $(cat tica-layout.out)"
pass "trails export --trails-md-layout: iter_N/features.npz where the run stored feature rows"
