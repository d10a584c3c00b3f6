#!/usr/bin/env bash
# Trails-MD's example configurations run unchanged (docs/trails-md-compatibility.md): our own
# files with the keys of Trails-MD's examples (tests/data/trails-md-examples/). The alanine-dipeptide
# "hello world" (PDB as structure and topology, make_system module, extract_cvs module,
# system.topology, system.trajectory_topology_file) passes `trails check` and runs 2 iterations,
# also spelt as Trails-MD's command line (`trails run --config X [--check]`); its notes appear
# once. The AlaD GROMACS topology (#includes of amber99sb.ff) prepares with the installed GROMACS
# force fields; a missing include names the line, the directories and engine.gromacs_include_dir.
# Input problems of the preparation stage come with the others, each line once. The Voronoi
# variant checks (AlaD) and runs (hello world). The kinetics example (config_kinetics.yaml: the
# weighted ensemble with inherited velocities and recycling) checks and runs 2 iterations, with
# weights summing to 1 and the recycled flux in the ledger. With TRAILS_TEST_LONG=1 AlaD also runs its 2
# iterations (16 walkers × 5000 steps of 1021 atoms: about 10 minutes on 2 CPU cores). A VAMPNet
# config with the AIB9 examples' keys checks (the system.topology note only) and runs 2 iterations
# on alanine dipeptide.
source "$(dirname "$0")/lib/common.bash"
cp -r "$ROOT/tests/data/trails-md-examples" ex
HELLO=ex/alanine_dipeptide

# --- hello world: check, then 2 iterations, both spellings -------------------------------------
"$TRAILS" check "$HELLO/config.yaml" > check.out 2> check.err || fail "check: $(cat check.err)"
grep -qF "Preflight checks passed" check.out || fail "check: $(cat check.out)"
[ "$(grep -c 'system.topology: has no effect' check.out)" -eq 1 ] ||
  fail "check: the system.topology note is not there exactly once: $(cat check.out)"
[ "$(grep -c 'note:' check.out)" -eq 1 ] || fail "check: unexpected notes: $(cat check.out)"
[ ! -s check.err ] || fail "check wrote to stderr: $(cat check.err)"
"$TRAILS" run --config "$HELLO/config.yaml" --check > check2.out || fail "run --config --check"
cmp check.out check2.out || fail "run --config --check differs from check: $(cat check2.out)"
[ ! -e "$HELLO/output" ] || fail "a check created the outdir"
pass "hello world: trails check and trails run --config --check agree, one note, nothing written"

"$TRAILS" run --config "$HELLO/config.yaml" --iterations 2 > run.out 2> run.err ||
  fail "run: $(cat run.err)"
[ "$(committed "$HELLO/output")" = 2 ] || fail "run: not 2 iterations committed"
[ "$(grep -c 'note .*system.topology: has no effect' run.out)" -eq 1 ] ||
  fail "run: the banner does not note system.topology once: $(cat run.out)"
"$TRAILS" run --config "$HELLO/config.yaml" --iterations 3 --resume > resume.out 2>&1 ||
  fail "run --config --resume: $(cat resume.out)"
[ "$(committed "$HELLO/output")" = 3 ] || fail "resume: not 3 iterations committed"
# extract_cvs gave phi/psi in radians for every frame (4 walkers x 10 frames per iteration).
"$TRAILS" export "$HELLO/output" --cvs cvs.csv
/usr/bin/python3 - <<'PY' || fail "hello world CVs"
import csv, math
rows = list(csv.DictReader(open("cvs.csv")))
assert len(rows) == 3 * 4 * 10, len(rows)
cols = [k for k in rows[0] if k.startswith("cv")]
assert len(cols) == 2, rows[0].keys()
assert all(abs(float(r[c])) <= math.pi + 1e-6 for r in rows for c in cols)
PY
"$TRAILS" export "$HELLO/output" --cvs named.csv --cv-names
[ "$(head -1 named.csv)" = "iteration,walker,frame,phi,psi" ] ||
  fail "the module's CV_NAMES are not the export's headers: $(head -1 named.csv)"
pass "hello world: 2 iterations, then --resume to 3 (trails run --config), phi/psi from extract_cvs"

# --- trajectory topology: checked against the prepared system's atoms ---------------------------
sed -n '1,6p;$p' "$HELLO/structure.pdb" > "$HELLO/five.pdb"
sed 's/trajectory_topology_file: structure.pdb/trajectory_topology_file: five.pdb/;
     s/outdir: output/outdir: five-out/' "$HELLO/config.yaml" > "$HELLO/five.yaml"
for cmd in check run; do
  expect_exit 2 "$cmd with a 5-atom trajectory topology" \
    "system.trajectory_topology_file: $PWD/$HELLO/five.pdb has 5 atoms but the prepared system" \
    "$TRAILS" "$cmd" "$HELLO/five.yaml"
done
[ ! -e "$HELLO/five-out" ] || fail "a refused run left its outdir"
pass "trajectory_topology_file with another atom count: exit 2 naming the key, nothing written"

# Where Trails-MD uses it, Trails does: extract_cvs reads with it (its top_file argument) ...
cp "$HELLO/structure.pdb" "$HELLO/traj-top.pdb"
sed "s|trajectory_topology_file: structure.pdb|trajectory_topology_file: traj-top.pdb|;
     s|project_file: project_phi_psi.py|project_file: $ROOT/tests/data/openmm/alad_phi_psi_project.py|;
     s/outdir: output/outdir: spy-out/" \
  "$HELLO/config.yaml" > "$HELLO/spy.yaml"
TRAILS_TEST_PROJECT_SPY=$PWD/spy.jsonl "$TRAILS" check "$HELLO/spy.yaml" > /dev/null ||
  fail "check with the spying project file"
/usr/bin/python3 - "$PWD/$HELLO" <<'PY' || fail "extract_cvs did not get the trajectory topology"
import json, sys
calls = [json.loads(l) for l in open("spy.jsonl")]
assert calls and all(c["top_file"] == sys.argv[1] + "/traj-top.pdb" for c in calls), calls
assert all(c["conf_file"] == sys.argv[1] + "/structure.pdb" for c in calls), calls
PY
# ... and the learned-space feature atoms come from it: renamed to a non-protein residue, the
# default feature_selection (protein and not (type H)) selects nothing there.
sed 's/ ALA A / LIG A /; s/ ACE A / LIG A /; s/ NME A / LIG A /' "$HELLO/structure.pdb" > "$HELLO/lig.pdb"
learned() {  # FILE TRAJECTORY_TOPOLOGY
  sed "s|trajectory_topology_file: structure.pdb|trajectory_topology_file: $2|;
       s/space_mode: fixed/space_mode: pca/; s/outdir: output/outdir: pca-out/" \
    "$HELLO/config.yaml" > "$HELLO/$1"
}
learned pca.yaml structure.pdb
"$TRAILS" check "$HELLO/pca.yaml" > /dev/null 2> pca.err || fail "PCA check: $(cat pca.err)"
learned pca-lig.yaml lig.pdb
expect_exit 2 "PCA features over a trajectory topology without protein" "system.feature_selection" \
  "$TRAILS" check "$HELLO/pca-lig.yaml"
pass "trajectory_topology_file: extract_cvs's top_file and the feature atoms come from it"

# --- preparation problems with the others, each line once and newline-terminated ----------------
sed '/system_file:/d; s/  walker: 4/  walkr: 4/; s/outdir: output/outdir: bad-out/' \
  "$HELLO/config.yaml" > "$HELLO/bad.yaml"
for cmd in check run; do
  expect_exit 2 "$cmd: PDB top_file without system_file" \
    "system.top_file: a PDB topology holds no force field" "$TRAILS" "$cmd" "$HELLO/bad.yaml"
  grep -qF "spawning.walkr: unknown key" err.txt || fail "$cmd: not all problems at once: $(cat err.txt)"
  [ "$(grep -c 'a PDB topology holds no force field' err.txt)" -eq 1 ] ||
    fail "$cmd: the top_file problem is not said exactly once: $(cat err.txt)"
  [ "$(tail -c 1 err.txt | od -An -c | tr -d ' ')" = '\n' ] ||
    fail "$cmd: the message does not end with a newline"
done
pass "a PDB top_file problem is reported with the others, once, newline-terminated"

# --- AlaD: GROMACS topology through OpenMM ----------------------------------------------------
ALAD=ex/AlaD
GMXTOP=$(dpkg -L gromacs-data | grep '/top$' | head -n 1)
[ -d "$GMXTOP/amber99sb.ff" ] || fail "gromacs-data is not installed (scripts/install-deps)"
sed -i "s|/path/to/gromacs/share/gromacs/top|$GMXTOP|; s/platform_name: CUDA/platform_name: CPU/" \
  "$ALAD/config.yaml"
"$TRAILS" check "$ALAD/config.yaml" > alad.out 2>&1 || fail "AlaD check: $(cat alad.out)"
sed '/gromacs_include_dir:/d' "$ALAD/config.yaml" > "$ALAD/default-include.yaml"
"$TRAILS" check "$ALAD/default-include.yaml" > alad2.out 2>&1 ||
  fail "AlaD check with the default include directory: $(cat alad2.out)"
mkdir -p "$ALAD/empty"
sed "s|gromacs_include_dir: .*|gromacs_include_dir: empty|" "$ALAD/config.yaml" > "$ALAD/noinc.yaml"
expect_exit 2 "AlaD with an include directory lacking amber99sb.ff" "engine.gromacs_include_dir: " \
  "$TRAILS" check "$ALAD/noinc.yaml"
for needle in "topol.top:2: #include \"amber99sb.ff/forcefield.itp\"" \
  "searched $PWD/$ALAD, $PWD/$ALAD/empty"; do
  grep -qF "$needle" err.txt || fail "missing include: message lacks '$needle': $(cat err.txt)"
done
pass "AlaD: GROMACS #includes from the installed force fields (key or default); a missing one named"
if [ "${TRAILS_TEST_LONG:-0}" = 1 ]; then
  "$TRAILS" run --config "$ALAD/config.yaml" --iterations 2 > alad-run.out 2>&1 ||
    fail "AlaD run: $(cat alad-run.out)"
  [ "$(committed "$ALAD/output")" = 2 ] || fail "AlaD: not 2 iterations committed"
  pass "AlaD: 2 iterations"
fi

# --- Voronoi: AlaD's config_voronoi (the AlaD config with spawn_scheme: voronoi) checks, and the
# hello world runs 2 iterations with it -------------------------------------------------------
# (its own outdir: with TRAILS_TEST_LONG=1 AlaD's output already holds the run above)
sed "s/spawn_scheme: density/spawn_scheme: voronoi/; s/outdir: output/outdir: voronoi-out/" \
  "$ALAD/config.yaml" > "$ALAD/voronoi.yaml"
"$TRAILS" check "$ALAD/voronoi.yaml" > alad-vor.out 2>&1 || fail "AlaD voronoi check: $(cat alad-vor.out)"
sed "s/spawn_scheme: density/spawn_scheme: voronoi/; s/outdir: output/outdir: voronoi-out/" \
  "$HELLO/config.yaml" > "$HELLO/voronoi.yaml"
"$TRAILS" run "$HELLO/voronoi.yaml" --iterations 2 > vor-run.out 2>&1 ||
  fail "hello world with voronoi: $(cat vor-run.out)"
[ "$(committed "$HELLO/voronoi-out")" = 2 ] || fail "hello world with voronoi: not 2 iterations"
pass "spawn_scheme voronoi: AlaD's Voronoi config checks, the hello world runs 2 iterations"

# --- kinetics: Trails-MD's config_kinetics (weighted ensemble, inherited velocities, recycling) --
"$TRAILS" run --config "$HELLO/config_kinetics.yaml" --check > kin-check.out 2>&1 ||
  fail "kinetics check: $(cat kin-check.out)"
grep -qF "Preflight checks passed" kin-check.out || fail "kinetics check: $(cat kin-check.out)"
"$TRAILS" run --config "$HELLO/config_kinetics.yaml" --iterations 2 > kin-run.out 2>&1 ||
  fail "kinetics run: $(cat kin-run.out)"
KIN=$HELLO/kinetics-output
[ "$(committed "$KIN")" = 2 ] || fail "kinetics: not 2 iterations committed"
/usr/bin/python3 - "$KIN" <<'PY' || fail "kinetics: weights or recycling"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/ledger.sqlite")
for it in (0, 1):
    w = [r[0] for r in db.execute("SELECT weight FROM walkers WHERE iteration = ?", (it,))]
    assert len(w) == 16 and abs(sum(w) - 1) < 1e-9, (it, w)
flux = db.execute("SELECT iteration, flux FROM recycling ORDER BY iteration").fetchall()
assert [f[0] for f in flux] == [0, 1] and all(0 <= f[1] <= 1 for f in flux), flux
PY
grep -q "recycled_flux" "$KIN/output.log" || fail "kinetics: output.log has no recycled_flux column"
"$TRAILS" status "$KIN" > kin-status.out || fail "kinetics status"
grep -q "^mfpt " kin-status.out || fail "kinetics: status has no mfpt line: $(cat kin-status.out)"
pass "kinetics example: checks, runs 2 iterations of the weighted ensemble (weights sum to 1, flux recorded)"

# --- a neural learned space with the AIB9 examples' keys (config_msm_vampnet / config_spib) ----
"$TRAILS" check "$HELLO/config_vampnet.yaml" > vn-check.out 2>&1 || fail "vampnet check: $(cat vn-check.out)"
grep -qF "Preflight checks passed" vn-check.out || fail "vampnet check: $(cat vn-check.out)"
[ "$(grep -c 'note:' vn-check.out)" -eq 1 ] && grep -qF "system.topology: has no effect" vn-check.out ||
  fail "vampnet check: expected the system.topology note only: $(cat vn-check.out)"
"$TRAILS" run --config "$HELLO/config_vampnet.yaml" --iterations 2 > vn-run.out 2>&1 ||
  fail "vampnet run: $(cat vn-run.out)"
[ "$(committed "$HELLO/vampnet-out")" = 2 ] || fail "vampnet: not 2 iterations committed"
"$TRAILS" export "$HELLO/vampnet-out" --cvs vn.csv --cv-names > /dev/null
[ "$(head -1 vn.csv)" = "iteration,walker,frame,vampnet_0,vampnet_1" ] ||
  fail "vampnet: CV names $(head -1 vn.csv)"
[ "$(wc -l < vn.csv)" -eq 81 ] || fail "vampnet: expected 2 x 4 walkers x 10 frames"
pass "vampnet example (AIB9 keys on alanine dipeptide): checks, runs 2 iterations"
