#!/usr/bin/env bash
# `trails swarm` on OpenMM (docs/swarm-examples.md), short versions of the two examples: the
# solvated Na+-Cl- pair (PME box) is byte-identical on one slot and on 2 devices x 2 workers (CPU
# platform) or 8 devices (Reference) -- metrics without wall time, reactive_path.csv and
# reactive_path.xtc; its reactive path opens in mdtraj and MDAnalysis with one frame per CSV row
# and the CSV's distance equal to mdtraj's minimum-image distance on the XTC; the Ala10 unfolding
# run gives a finite Q <= 1 that drops along the path and agrees with the Best-Hummer-Eaton
# formula on mdtraj's distances. The swarm's shards keep exact float64 anchors, and a swarm killed
# after a commit resumes bitwise.
source "$(dirname "$0")/lib/common.bash"
# A fixed CPU thread count: the CPU platform's bits depend on it (docs/engines.md).
export OPENMM_CPU_THREADS=1

# short_config EXAMPLE FILE WORKDIR [extra pathgennie lines...]: the example with few, short
# cycles; conf_file made absolute.
short_config() {
  local example=$1 file=$2 workdir=$3
  shift 3
  sed -e "s#^workdir: .*#workdir: $workdir#" \
    -e "s#^  conf_file: #  conf_file: $ROOT/examples/$example/#" \
    -e "s#^  max_trial: .*#  max_trial: 4#" -e "s#^  tau1_steps: .*#  tau1_steps: 10#" \
    -e "s#^  tau2_steps: .*#  tau2_steps: 10#" -e "s#^  max_cycle: .*#  max_cycle: 5#" \
    "$ROOT/examples/$example/input.yaml" > "$file"
  local line
  for line in "$@"; do sed -i "s#^  seed: \(.*\)#  seed: \1\n  $line#" "$file"; done
}
fingerprint() {
  cut -d, -f1-10 "$1/path_0/metrics.csv"
  cat "$1/path_0/reactive_path.csv"
}

short_config swarm-ion-pair one.yaml one "devices: [0]"
short_config swarm-ion-pair four.yaml four "devices: [0, 1]" "workers_per_device: 2"
"$TRAILS" swarm one.yaml > one.out 2>&1 || fail "ion-pair swarm on one slot: $(cat one.out)"
"$TRAILS" swarm four.yaml > four.out 2>&1 || fail "ion-pair swarm on 4 slots: $(cat four.out)"
grep -q "4 slot(s)" four.out || fail "no 4 slots: $(cat four.out)"
[ "$(grep -c '^[0-9]' one/path_0/metrics.csv)" -eq 5 ] || fail "not 5 cycles: $(cat one/path_0/metrics.csv)"
diff <(fingerprint one) <(fingerprint four) > /dev/null || fail "2 devices x 2 workers changed the OpenMM swarm"
cmp one/path_0/reactive_path.xtc four/path_0/reactive_path.xtc || fail "the reactive-path XTC differs between 1 and 4 slots"
pass "an OpenMM CPU swarm is byte-identical on 1 slot and on 2 devices x 2 workers"

# The swarm's shards hold its anchors, restart states, at float64 (docs/file-formats.md,
# "Quantised positions"), and a swarm killed after its third commit resumes to the same path.
short_config swarm-ion-pair crash.yaml crash "devices: [0]"
set +e
TRAILS_CRASH_AT=after-commit:2 "$TRAILS" swarm crash.yaml > crash.out 2>&1
rc=$?
set -e
[ $rc -eq 137 ] || fail "crash: expected SIGKILL (137), got $rc: $(cat crash.out)"
"$TRAILS" swarm crash.yaml --resume > crash.resumed.out 2>&1 || fail "crash: --resume: $(cat crash.resumed.out)"
diff <(fingerprint one) <(fingerprint crash) > /dev/null || fail "the resumed OpenMM swarm differs from the uninterrupted one"
cmp one/path_0/reactive_path.xtc crash/path_0/reactive_path.xtc || fail "the resumed swarm's XTC differs"
[ "$(sqlite3 crash/ledger.sqlite "SELECT value FROM meta WHERE key = 'position_precision'")" = exact ] ||
  fail "a swarm's meta must record exact positions"
/usr/bin/python3 - crash <<'PY' || fail "a swarm shard is not exact float64"
import glob, sys, h5py, numpy as np
shards = sorted(glob.glob(sys.argv[1] + "/shards/iter_*.h5"))
frames = 0
for f in shards:
    with h5py.File(f, "r") as h:
        assert h["trails/record_policy"].attrs["precision"] == b"float64", f
        x = h["particles/walkers/position/value"]
        assert x.dtype == np.float64, f
        frames += x.shape[0]
assert frames >= 1, shards
PY
pass "an OpenMM swarm's shards are exact float64; killed after a commit, it resumes bitwise"

# The Reference platform (one process-wide noise generator, docs/engines.md): 3 cycles on one
# device and on 8.
short_config swarm-ion-pair ref1.yaml ref1 "devices: [0]"
short_config swarm-ion-pair ref8.yaml ref8 "devices: [0, 1, 2, 3, 4, 5, 6, 7]"
sed -i -e "s#platform_name: CPU#platform_name: Reference#" -e "s#^  max_cycle: .*#  max_cycle: 3#" ref1.yaml ref8.yaml
"$TRAILS" swarm ref1.yaml > ref1.out 2>&1 || fail "Reference swarm on one device: $(cat ref1.out)"
"$TRAILS" swarm ref8.yaml > ref8.out 2>&1 || fail "Reference swarm on 8 devices: $(cat ref8.out)"
grep -q "Reference platform" ref8.out || fail "not on the Reference platform: $(cat ref8.out)"
grep -q "8 slot(s)" ref8.out || fail "no 8 slots: $(cat ref8.out)"
diff <(fingerprint ref1) <(fingerprint ref8) > /dev/null || fail "8 devices changed the Reference swarm"
cmp ref1/path_0/reactive_path.xtc ref8/path_0/reactive_path.xtc || fail "the Reference XTC differs between 1 and 8 devices"
pass "an OpenMM Reference swarm is byte-identical on 1 and 8 devices"

/usr/bin/python3 - one/path_0 <<'PY' || fail "the reactive path does not match its CSV in mdtraj/MDAnalysis"
import csv, sys, warnings
import numpy as np, mdtraj as md
warnings.filterwarnings("ignore")
import MDAnalysis as mda
d = sys.argv[1]
rows = list(csv.DictReader(open(f"{d}/reactive_path.csv")))
cv = np.array([float(r["d_na_cl"]) for r in rows])
t = md.load(f"{d}/reactive_path.xtc", top=f"{d}/reactive_path.pdb")
assert t.n_frames == len(rows), (t.n_frames, len(rows))
assert t.unitcell_vectors is not None, "the XTC has no box"
ours = md.compute_distances(t, [[0, 1]], periodic=True)[:, 0]
err = np.abs(ours - cv).max()
# The XTC keeps 0.001 nm per coordinate: a distance can be off by up to sqrt(3) * 0.001 nm.
assert err < 1.8e-3, f"mdtraj distance vs CSV: {err}"
u = mda.Universe(f"{d}/reactive_path.pdb", f"{d}/reactive_path.xtc")
assert len(u.trajectory) == len(rows), (len(u.trajectory), len(rows))
assert u.atoms.n_atoms == t.n_atoms == 1460, u.atoms.n_atoms
assert np.allclose(u.trajectory[-1].positions / 10.0, t.xyz[-1], atol=1e-4)
print(f"{len(rows)} frames, max |d_mdtraj - d_csv| = {err:.2e} nm")
PY
pass "the ion-pair path opens in mdtraj and MDAnalysis and its distances match the CSV"

# 40 cycles of 4 trials: enough for the first native contacts to break.
short_config swarm-unfold unfold.yaml unfold
sed -i -e "s#^  max_cycle: .*#  max_cycle: 40#" -e "s#^  tau2_steps: .*#  tau2_steps: 20#" unfold.yaml
"$TRAILS" swarm unfold.yaml > unfold.out 2>&1 || fail "unfold swarm: $(cat unfold.out)"
/usr/bin/python3 - unfold/path_0 "$ROOT/examples/swarm-unfold/helix.pdb" <<'PY' || fail "Q of the unfolding path is wrong"
import csv, sys, warnings
import numpy as np, mdtraj as md
warnings.filterwarnings("ignore")
d, native = sys.argv[1], sys.argv[2]
rows = list(csv.DictReader(open(f"{d}/reactive_path.csv")))
q = np.array([float(r["q"]) for r in rows])
metric = np.array([float(r["metric"]) for r in rows])
assert len(rows) == 40 and np.isfinite(q).all() and (q > 0).all() and (q <= 1).all(), q
assert q[-1] < q[0] - 0.01, f"Q did not drop: {q[0]} -> {q[-1]}"
# Escape from the native helix (Q0 = 1 up to 1e-5): the metric |Q - Q0| is 1 - Q.
assert np.abs(metric - (1 - q)).max() < 1e-4, (metric, q)
t = md.load(f"{d}/reactive_path.xtc", top=f"{d}/reactive_path.pdb")
ref = md.load(native)
# Best-Hummer-Eaton Q written out (mdtraj's documented recipe; Debian's mdtraj lacks the helper).
heavy = [a.index for a in ref.topology.atoms if a.element.symbol != "H"]
pairs = np.array([(i, j) for i in heavy for j in heavy
                  if ref.topology.atom(j).residue.index - ref.topology.atom(i).residue.index > 3])
r0 = md.compute_distances(ref, pairs)[0]
native_pairs, r0 = pairs[r0 < 0.45], r0[r0 < 0.45]
theirs = np.mean(1.0 / (1.0 + np.exp(50.0 * (md.compute_distances(t, native_pairs) - 1.8 * r0))), axis=1)
err = np.abs(theirs - q).max()
assert len(native_pairs) > 10 and err < 2e-3, f"Q vs mdtraj: {err} ({len(native_pairs)} pairs)"
print(f"Q {q[0]:.4f} -> {q[-1]:.4f},", f"max |Q - mdtraj| = {err:.1e}")
PY
pass "Q drops along the unfolding path, stays finite and <= 1, and matches the formula on mdtraj distances"
