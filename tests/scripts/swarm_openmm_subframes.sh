#!/usr/bin/env bash
# Subframes on OpenMM (docs/swarm.md, "Subframes"): a 3-cycle swarm of the solvated Na+-Cl- pair
# on the Reference platform (a segment is a function of its seed there, docs/engines.md) with
# save_subframes: the replay reproduces every stored anchor bit for bit (full float64 positions
# and box, checked by trails itself), and reactive_path_subframes.xtc opens in mdtraj with one
# frame every subframe_stride steps, its times the path times, and every reactive-path frame
# present in it with identical coordinates and box (both files hold the same quantized floats).
source "$(dirname "$0")/lib/common.bash"
export OPENMM_CPU_THREADS=1

sed -e "s#^workdir: .*#workdir: sub#" \
  -e "s#^  conf_file: #  conf_file: $ROOT/examples/swarm-ion-pair/#" \
  -e "s#^  max_trial: .*#  max_trial: 3#" -e "s#^  tau1_steps: .*#  tau1_steps: 10#" \
  -e "s#^  tau2_steps: .*#  tau2_steps: 10#" -e "s#^  max_cycle: .*#  max_cycle: 3#" \
  -e "s#platform_name: CPU#platform_name: Reference#" \
  -e "s#^  seed: \(.*\)#  seed: \1\n  save_subframes: true\n  subframe_stride: 5#" \
  "$ROOT/examples/swarm-ion-pair/input.yaml" > sub.yaml
"$TRAILS" swarm sub.yaml > sub.out 2>&1 || fail "OpenMM swarm with subframes: $(cat sub.out)"
grep -q "Reference platform" sub.out || fail "not on the Reference platform: $(cat sub.out)"
grep -q "subframes: path 0: .* frame(s); all 3 replayed anchors match bitwise" sub.out ||
  fail "the OpenMM replay does not reproduce the anchors: $(cat sub.out)"
[ -s sub/path_0/reactive_path_subframes.xtc ] || fail "no reactive_path_subframes.xtc"
pass "the OpenMM Reference replay reproduces all 3 anchors bitwise"

/usr/bin/python3 - sub/path_0 <<'PY' || fail "the OpenMM subframes do not hold the anchors"
import csv, sys, warnings
import numpy as np, mdtraj as md
warnings.filterwarnings("ignore")
d = sys.argv[1]
metrics = list(csv.DictReader(open(f"{d}/metrics.csv")))
rows = list(csv.DictReader(open(f"{d}/reactive_path.csv")))
sub = md.load(f"{d}/reactive_path_subframes.xtc", top=f"{d}/reactive_path.pdb")
path = md.load(f"{d}/reactive_path.xtc", top=f"{d}/reactive_path.pdb")
assert sub.n_atoms == 1460 and sub.unitcell_vectors is not None, sub
# One frame per 5 steps of path (10 per trial, 10 per extension, 0 when the anchor was kept).
steps = int(metrics[-1]["path_steps"])
assert steps > 0 and sub.n_frames == steps // 5, (sub.n_frames, steps)
dt_ps = 0.002 * 5
assert np.allclose(sub.time, dt_ps * np.arange(1, sub.n_frames + 1), atol=1e-4), sub.time
assert path.n_frames == len(rows) == 3, (path.n_frames, len(rows))
for i, r in enumerate(rows):
    hit = np.nonzero(np.isclose(sub.time, float(r["path_time"]), atol=1e-4))[0]
    assert len(hit) == 1, ("no subframe at anchor time", r["path_time"], sub.time)
    j = hit[0]
    assert np.array_equal(sub.xyz[j], path.xyz[i]), ("anchor coordinates differ", i, j)
    assert np.array_equal(sub.unitcell_vectors[j], path.unitcell_vectors[i]), ("box differs", i)
print(f"{sub.n_frames} subframes, {len(rows)} anchors found in them")
PY
pass "reactive_path_subframes.xtc opens in mdtraj, one frame per 5 steps, every anchor in it"
