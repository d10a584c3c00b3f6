#!/usr/bin/env bash
# A 20-iteration Müller–Brown campaign leaves the start basin A (−0.56, 1.44): some sampled
# frame crosses the A–C saddle region (x > −0.2 or y < 0.9), which plain MD from A at this
# temperature and length essentially never does. Also checks output.log and convergence.json.
source "$(dirname "$0")/lib/common.bash"
write_config cfg.yaml run
"$TRAILS" run cfg.yaml --iterations 20 > run.out || fail "run failed: $(cat run.out)"
export_run run out
rows=$(($(wc -l < out.cvs.csv) - 1))
[ "$rows" -eq $((20 * 8 * 20)) ] || fail "expected 3200 CV rows, got $rows"
left=$(awk -F, 'NR > 1 && ($4 > -0.2 || $5 < 0.9) { n++ } END { print n + 0 }' out.cvs.csv)
[ "$left" -gt 0 ] || fail "campaign never left the start basin"
pass "campaign left basin A ($left frames beyond the A–C saddle region)"

log_rows=$(grep -vc '^#' run/output.log)
[ "$log_rows" -eq 21 ] || fail "output.log should have a column line and 20 rows, has $log_rows lines"
grep -q $'^iteration\trunner_s\tanalysis_s\ttotal_s\tsuccessful_walkers' run/output.log || fail "output.log columns"
grep -q '^# spawn_scheme=density' run/output.log || fail "output.log header"
/usr/bin/python3 - <<'PY' || fail "convergence.json content"
import json
c = json.load(open("run/convergence.json"))
assert c["completed_iterations"] == 20 and c["requested_iterations"] == 20, c
assert c["converged"] is False and c["convergence_reason"] is None, c
PY
# Occupancy never decreases and frames accumulate exactly.
awk -F'\t' '!/^#/ && $1 != "iteration" { if ($8 != ($1 + 1) * 160) bad = 1; if ($9 < prev) bad = 1; prev = $9 }
  END { exit bad }' run/output.log || fail "cumulative frames / occupancy columns inconsistent"
pass "output.log and convergence.json"
