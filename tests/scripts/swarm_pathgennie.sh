#!/usr/bin/env bash
# A PathGennie input.yaml runs unchanged (docs/swarm.md, "From a PathGennie input.yaml"):
# examples/swarm-ion-pair/pathgennie/ (openmm: block with PathGennie's system.py, a Python
# projection and a Python convergence function) gives the same path as the native ion-pair
# config (cvs: distance, convergence.metric_at_least): the same chosen trials, the same stop
# cycle, bitwise the same stored anchor positions; the CV and metric values agree to 1e-12 (the
# Python and C++ minimum-image distances may round differently in the last bit). Bad Python
# functions and openmm: keys exit 2 naming the input.yaml key and line, and write nothing.
source "$(dirname "$0")/lib/common.bash"
export OPENMM_CPU_THREADS=1

cp -r "$ROOT/examples/swarm-ion-pair" ex
rm -rf ex/runs
short() {  # short FILE WORKDIR: 4 trials of 10 steps, extension 10 steps, at most 5 cycles
  sed -i -e "s#^workdir: .*#workdir: $2#" -e "s#^  max_trial: .*#  max_trial: 4#" \
    -e "s#^  tau1_steps: .*#  tau1_steps: 10#" -e "s#^  tau2_steps: .*#  tau2_steps: 10#" \
    -e "s#^  max_cycle: .*#  max_cycle: 5#" "$1"
}
short ex/input.yaml "$WORK/native"
sed -i "s#^  metric_at_least: .*#  metric_at_least: 0.275#" ex/input.yaml
short ex/pathgennie/input.yaml "$WORK/pg"
sed -i "s#^  cutoff: .*#  cutoff: 0.275#" ex/pathgennie/input.yaml
"$TRAILS" swarm ex/input.yaml > native.out 2>&1 || fail "native ion-pair swarm: $(cat native.out)"
"$TRAILS" swarm ex/pathgennie/input.yaml > pg.out 2>&1 || fail "PathGennie input.yaml: $(cat pg.out)"
grep -q "converged" pg/path_0/metrics.csv 2>/dev/null || true
/usr/bin/python3 - native/path_0 pg/path_0 <<'PY' || fail "the PathGennie input.yaml gave another path"
import csv, sys
a = list(csv.DictReader(open(f"{sys.argv[1]}/metrics.csv")))
b = list(csv.DictReader(open(f"{sys.argv[2]}/metrics.csv")))
assert len(a) == len(b) and 1 < len(a) < 5, ("cycles", len(a), len(b))
assert a[-1]["converged"] == b[-1]["converged"] == "1", "did not stop by convergence"
for x, y in zip(a, b):
    for k in ("chosen_trial", "outcome", "accepted", "converged", "path_steps"):
        assert x[k] == y[k], (k, x, y)
    for k in ("anchor_metric", "tau2_metric"):
        assert abs(float(x[k]) - float(y[k])) < 1e-12, (k, x[k], y[k])
print(f"{len(a)} cycles, the same trials chosen, converged at cycle {a[-1]['cycle']}")
PY
for shard in native/shards/*.h5; do
  name=$(basename "$shard")
  h5dump -d /particles/walkers/position/value -b LE -o "n_$name.bin" "$shard" > /dev/null
  h5dump -d /particles/walkers/position/value -b LE -o "p_$name.bin" "pg/shards/$name" > /dev/null
  cmp -s "n_$name.bin" "p_$name.bin" || fail "stored anchor positions differ in $name"
done
cmp native/path_0/reactive_path.xtc pg/path_0/reactive_path.xtc || fail "the reactive paths differ"
pass "a PathGennie input.yaml (openmm + projection + convergence) gives the native config's path, bitwise"

# bad CONFIG-EDIT NEEDLE: a variant of the PathGennie input exits 2 naming NEEDLE and writes nothing.
cat > ex/pathgennie/bad_cvs.py <<'PY'
def boom(coords, box):
    raise ValueError("no CV today")
def matrix(coords, box):
    return [[1.0, 2.0], [3.0, 4.0]]
def maybe(coords, box, cutoff):
    return 1.0
PY
bad() {
  local what=$1 script=$2 needle=$3
  sed -e "s#^workdir: .*#workdir: $WORK/bad#" ex/pathgennie/input.yaml > ex/pathgennie/bad.yaml
  sed -i "$script" ex/pathgennie/bad.yaml
  expect_exit 2 "$what" "$needle" "$TRAILS" swarm ex/pathgennie/bad.yaml
  grep -qF "bad.yaml:" out.txt err.txt || fail "$what: no file:line in $(cat err.txt)"
  [ ! -e bad ] || fail "$what: the workdir was written"
}
bad "missing module" "0,/module: ion_cvs/s//module: nosuch/" "projection.module: no Python module"
bad "missing function" "s/function: na_cl_distance/function: nosuch/" "defines no function nosuch"
bad "raising function" "0,/module: ion_cvs/s//module: bad_cvs/; s/function: na_cl_distance/function: boom/" \
  "raised ValueError: no CV today"
bad "2-D projection" "0,/module: ion_cvs/s//module: bad_cvs/; s/function: na_cl_distance/function: matrix/" \
  "returned shape (2, 2)"
bad "missing convergence function" "s/function: separated/function: maybe/" \
  "defines no function maybe"
bad "convergence not a bool" "/^convergence:/,/^openmm:/ s/module: ion_cvs/module: bad_cvs/; s/function: separated/function: maybe/" \
  "must return True or False"
bad "unknown openmm key" "s/^  platform: CPU/  platfrom: CPU/" "openmm.platfrom: unknown key in the openmm block; did you mean platform"
bad "projection and cvs" "s/^openmm:/cvs:\n  - {name: d, kind: distance, atoms: [0, 1]}\nopenmm:/" "the CVs are given twice"
bad "missing system module" "s/^  module: system.py/  module: nosystem.py/" "openmm.module"
pass "bad Python functions and openmm keys exit 2 naming the key and line, nothing written"
