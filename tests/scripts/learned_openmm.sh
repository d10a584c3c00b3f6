#!/usr/bin/env bash
# Learned CV spaces on OpenMM campaigns (alanine dipeptide, Reference platform, vacuum): TICA on
# heavy-atom distances with φ/ψ as physical CVs. The shard's features match mdtraj's distances
# and its physical CVs mdtraj's φ/ψ; the learned CVs are the stored projection of the features.
# With VAMP-2 feature selection and feature-type ranking: serial and 2-thread runs are
# byte-identical, and SIGKILL + --resume reproduces the uninterrupted run bitwise.
source "$(dirname "$0")/lib/common.bash"
export PYTHONPATH="$ROOT/share/trails/python"  # trails_run.shard_positions decodes the grid
PDB="$ROOT/examples/alanine-dipeptide/alanine-dipeptide.pdb"

learned_config() {  # FILE OUTDIR MAX_WORKERS [extra top-level lines]
  cat > "$1" <<YAML
outdir: $2
random_seed: 5
iterations: 5
space_mode: tica
n_bins: [10, 10]
save_features: true
adaptive_feature_type: distances
adaptive_model:
  lagtime: 2
cvs:
  - {name: phi, kind: phi, resid: 2}
  - {name: psi, kind: psi, resid: 2}
system:
  conf_file: $PDB
  forcefield: [amber14-all.xml]
  feature_selection: protein and not (type H)
engine:
  md_engine: openmm
  platform_name: Reference
  dt: 0.002
spawning:
  walker: 4
  step: 200
  stride: 10
  max_workers: $3
  spawn_scheme: density
  spawn_type: hard
YAML
  local line
  for line in "${@:4}"; do echo "$line" >> "$1"; done
}
checksums() { sqlite3 "$1/ledger.sqlite" "SELECT iteration, shard_checksum FROM iterations ORDER BY iteration"; }

# 1. Plain TICA on distances: features, physical CVs and learned CVs against mdtraj / the model.
learned_config plain.yaml plain 2
"$TRAILS" run plain.yaml > plain.out 2>&1 || fail "plain run: $(cat plain.out)"
/usr/bin/python3 - plain <<'PY' || fail "features / physical CVs / learned CVs check"
import glob, itertools, json, sqlite3, sys, h5py, numpy as np, mdtraj as md
from trails_run import shard_positions
run = sys.argv[1]
top = md.load(glob.glob(f"{run}/prepared/*/topology.pdb")[0]).topology
heavy = [a.index for a in top.atoms if a.element.symbol != "H"]
assert len(heavy) == 10, len(heavy)
pairs = np.array(list(itertools.combinations(heavy, 2)))
db = sqlite3.connect(f"{run}/ledger.sqlite")
space = json.loads(db.execute(
    "SELECT blob FROM element_state WHERE key = 'space' ORDER BY iteration DESC").fetchone()[0])
assert space["feature_type"] == "distances", space["feature_type"]
flat = np.array(space["projection"])  # [version, d, k, mean (d), coefficients (col-major)]
d, k = int(flat[1]), int(flat[2])
assert (d, k) == (45, 2), (d, k)
mean, coef = flat[3:3 + d], flat[3 + d:3 + d + d * k].reshape(k, d).T
worst_f = worst_p = 0.0
for shard in sorted(glob.glob(f"{run}/shards/iter_*.h5")):
    with h5py.File(shard, "r") as f:
        xyz = shard_positions(f)
        feats = f["observables/features/value"][...]
        phys = f["observables/physical_cvs/value"][...]
        cvs = f["observables/cvs/value"][...]
    t = md.Trajectory(xyz, top)
    ref = md.compute_distances(t, pairs, periodic=False) * 10.0  # Å, as Trails-MD
    worst_f = max(worst_f, np.abs(ref - feats).max())
    _, phi = md.compute_phi(t)
    _, psi = md.compute_psi(t)
    dphi = np.angle(np.exp(1j * (np.column_stack([phi[:, 0], psi[:, 0]]) - phys)))
    worst_p = max(worst_p, np.abs(dphi).max())
    last = shard
# The last iteration's learned CVs are its features in the model current at its commit.
proj = (feats - mean) @ coef
assert np.abs(proj - cvs).max() < 1e-9, np.abs(proj - cvs).max()
assert worst_f < 1e-4, worst_f   # Å (1e-5 nm)
assert worst_p < 1e-4, worst_p   # rad
print(f"features vs mdtraj {worst_f:.2e} Å, phi/psi {worst_p:.2e} rad")
PY
pass "tica on heavy-atom distances: features, phi/psi and learned CVs match mdtraj / the model"

# 2. Feature selection and type ranking (cadence 2: ranked at 0, 2, 4), serial vs threads.
fsel=("feature_selection:" "  enabled: true" "  lagtime: 2" "  cadence: 2" "  max_features: 8"
      "  candidate_feature_types: [phi_psi, distances, fitted_coords]")
learned_config serial.yaml serial 1 "${fsel[@]}"
learned_config threads.yaml threads 2 "${fsel[@]}"
"$TRAILS" run serial.yaml > serial.out 2>&1 || fail "serial run: $(cat serial.out)"
"$TRAILS" run threads.yaml > threads.out 2>&1 || fail "threaded run: $(cat threads.out)"
[ "$(checksums serial)" = "$(checksums threads)" ] || fail "serial and threaded shards differ"
export_run serial serial
export_run threads threads
cmp serial.cvs.csv threads.cvs.csv || fail "serial and threaded CV exports differ"
sqlite3 serial/ledger.sqlite \
  "SELECT CAST(blob AS TEXT) FROM element_state WHERE key = 'space' ORDER BY iteration DESC LIMIT 1" |
  /usr/bin/python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s["feature_type_ranked"] and len(s["feature_type_ranking"]) == 3, s
cols = s["selected_columns"]
assert cols and 2 <= len(cols) <= 8 and cols == sorted(cols), cols
print("type", s["feature_type"], "columns", cols)' || fail "feature selection state"
pass "feature selection + type ranking: serial and 2-thread runs byte-identical"

# 3. Killed after iterations 1 and 2 (a ranking iteration) committed, then resumed.
for n in 1 2; do
  learned_config "crash$n.yaml" "crash$n" 2 "${fsel[@]}"
  set +e
  TRAILS_CRASH_AT=after-commit:$n "$TRAILS" run "crash$n.yaml" > "crash$n.out" 2>&1
  rc=$?
  set -e
  [ $rc -eq 137 ] || fail "expected death by SIGKILL (137), got $rc: $(cat "crash$n.out")"
  "$TRAILS" run "crash$n.yaml" --resume > "resume$n.out" 2>&1 || fail "resume: $(cat "resume$n.out")"
  [ "$(checksums serial)" = "$(checksums "crash$n")" ] || fail "crash at $n: resumed shards differ"
  export_run "crash$n" "crash$n"
  cmp serial.cvs.csv "crash$n.cvs.csv" || fail "crash at $n: CV export differs"
  cmp serial.lineage.csv "crash$n.lineage.csv" || fail "crash at $n: lineage differs"
done
pass "kill -9 after iterations 1 and 2, resume: identical to the uninterrupted run"

# 4. A feature selection that matches nothing: exit 2 naming the key, no run directory left.
learned_config empty.yaml empty 1
sed -i 's/feature_selection: protein and not (type H)/feature_selection: resname XYZ/' empty.yaml
set +e
"$TRAILS" run empty.yaml > empty.out 2>&1
rc=$?
set -e
[ $rc -eq 2 ] || fail "empty feature selection: exit $rc, expected 2: $(cat empty.out)"
grep -qF 'system.feature_selection: the atom selection "resname XYZ" matches no atom' empty.out ||
  fail "empty feature selection: message: $(cat empty.out)"
[ ! -e empty ] || fail "empty feature selection: a run directory was left behind"
pass "an empty system.feature_selection is refused (exit 2) before any MD"
