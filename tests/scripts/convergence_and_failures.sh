#!/usr/bin/env bash
# Occupancy convergence ends a campaign early (convergence.json says why), and the walker
# failure policy: survivors continue above min_success_fraction, the run stops (exit 1, nothing
# committed for that iteration) below it.
source "$(dirname "$0")/lib/common.bash"

cat > conv.yaml <<'YAML'
outdir: conv
iterations: 50
n_bins: [4]
min_values: [-2.0]
max_values: [2.0]
system:
  start: [-1.0]
engine:
  md_engine: builtin
  potential: double_well
  kT: 1.0
  dt: 0.001
spawning:
  walker: 4
  step: 200
  stride: 10
  resolution_max_bins: 4
  convergence_patience: 3
YAML
"$TRAILS" run conv.yaml > conv.out || fail "converging run failed"
/usr/bin/python3 - <<'PY' || fail "convergence.json: $(cat conv/convergence.json)"
import json
c = json.load(open("conv/convergence.json"))
assert c["converged"] is True and "No new occupied bins" in c["convergence_reason"], c
assert 3 <= c["completed_iterations"] < 50 and c["requested_iterations"] == 50, c
PY
grep -q "Converged:" conv.out || fail "run output does not say it converged"
pass "occupancy convergence stops the campaign at $(grep -c '' conv/output.log) log lines"

# Walker 1 starts where the Müller–Brown exponentials overflow: it fails, the others go on.
partial() { bad_start_config "$1.yaml" "$1" "$2"; }
partial survive 0.75
"$TRAILS" run survive.yaml > survive.out 2> survive.err || fail "run with a tolerated failure: $(cat survive.err)"
awk -F'\t' '!/^#/ && $1 == "0" { if ($5 != 3 || $6 != 1) exit 1 }' survive/output.log || fail "iteration 0 should log 3 ok / 1 failed"
grep -q "walker 1" survive.err || fail "the failed walker is not reported"
export_run survive s
grep -q '^0,1,' s.cvs.csv && fail "frames of the failed walker were exported"
grep -q '^1,1,0,' s.cvs.csv || fail "walker slot 1 should run again in iteration 1"
pass "a failed walker is reported and its slot respawned"

partial strict 1.0
set +e; "$TRAILS" run strict.yaml > strict.out 2> strict.err; rc=$?; set -e
[ $rc -eq 1 ] || fail "below min_success_fraction: exit $rc, expected 1"
grep -q "only 3 of 4 walkers succeeded" strict.err || fail "message: $(cat strict.err)"
grep -q "non-finite" strict.err || fail "walker error not shown: $(cat strict.err)"
[ ! -e strict ] || fail "the failed iteration 0 left $(find strict)"
pass "below min_success_fraction the run stops with exit 1 and leaves nothing (iteration 0)"
