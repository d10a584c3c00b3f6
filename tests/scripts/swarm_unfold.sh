#!/usr/bin/env bash
# `trails swarm` in PathGennie's legacy unfold mode and with the legacy stall rules
# (docs/swarm.md, "Legacy modes" and "Stopping"), on the built-in Müller–Brown potential: the
# weighted score leads from basin A to basin B; the path is the same for any probe batch; the
# phase switch survives kill -9 and --resume; stall and stagnation stop a chain with the stored
# reason; bad unfold keys exit 2 and write nothing.
source "$(dirname "$0")/lib/common.bash"
source "$ROOT/tests/scripts/lib/swarm.bash"

# unfold_config FILE WORKDIR [extra pathgennie lines...]: unfold mode with score x − y, stopping
# in basin B (x ≥ 0.4 and y ≤ 0.3).
unfold_config() {
  swarm_config "$@"
  sed -i -e 's/^  mode: target/  mode: unfold\n  unfold_weights: [1.0, -1.0]/' -e '/target_projection/d' \
    -e 's/distance_to_target: .*/cv_at_least: {x0: 0.4}\n  cv_at_most: {x1: 0.3}/' "$1"
}
fingerprint() {
  cut -d, -f1-10,12 "$1/path_0/metrics.csv"
  cat "$1/path_0/reactive_path.csv"
}

for b in 1 5 16; do
  unfold_config "u$b.yaml" "u$b" "probe_batch: $b"
  "$TRAILS" swarm "u$b.yaml" > "u$b.out" 2>&1 || fail "unfold (batch $b) failed: $(cat "u$b.out")"
done
grep -q "unfold mode, .* first improvement, probes in batches of 5" u5.out || fail "banner: $(cat u5.out)"
grep -q "^path 0: .* converged" u1.out || fail "unfold did not reach basin B: $(cat u1.out)"
for b in 5 16; do
  diff <(fingerprint u1) <(fingerprint "u$b") > /dev/null || fail "probe_batch $b changed the unfold path"
done
/usr/bin/python3 - u1/path_0/reactive_path.csv u1/path_0/metrics.csv <<'PY' || fail "unfold's path"
import csv, sys
path = list(csv.DictReader(open(sys.argv[1])))
metrics = list(csv.DictReader(open(sys.argv[2])))
x, y = float(path[-1]["x0"]), float(path[-1]["x1"])
assert x >= 0.4 and y <= 0.3, (x, y)
assert all(r["selection_entropy"] == "0" for r in metrics), "first improvement is a certain choice"
# Without an improver the best probe's end is kept and tau2 skipped: some cycles, not all.
outcomes = {r["outcome"] for r in metrics}
assert outcomes <= {"extended", "trial"}, outcomes
PY
pass "unfold's weighted score leads to basin B, the same path for probe batches of 1, 5 and 16"

# The phase switch (cycle 4 here) continues across kill -9 and --resume.
unfold_config switch.yaml switch "unfold_phase_cycles: 4" "probe_batch: 4"
sed -i 's/^  max_cycle: .*/  max_cycle: 12/' switch.yaml
"$TRAILS" swarm switch.yaml > switch.out 2>&1 || fail "switch run failed: $(cat switch.out)"
sed 's#^workdir: .*#workdir: crash#' switch.yaml > crash.yaml
set +e
TRAILS_CRASH_AT=after-commit:2 "$TRAILS" swarm crash.yaml > crash.out 2>&1
rc=$?
set -e
[ $rc -eq 137 ] || fail "expected SIGKILL (137), got $rc: $(cat crash.out)"
"$TRAILS" swarm crash.yaml --resume > resume.out 2>&1 || fail "resume failed: $(cat resume.out)"
diff <(fingerprint switch) <(fingerprint crash) > /dev/null || fail "kill -9 and --resume across the phase switch changed the path"
# Before the switch the path is unfold's phase 1 (the run of batch 1); after it, another one.
first() { cut -d, -f1-10 "$1/path_0/metrics.csv" | head -n "$2"; }
diff <(first switch 5) <(first u1 5) > /dev/null || fail "phase 1 differs from the long run's"
diff <(first switch 13) <(first u1 13) > /dev/null && fail "the phase switch changed nothing"
pass "the unfold phase switch continues across kill -9 and --resume"

# Stall rules: a huge tolerance stalls at once (after stall_cycles cycles), or stagnates (after
# stagnation_window cycles); the reason is stored and reported.
unfold_config stall.yaml stall
sed -i 's/^convergence:/convergence:\n  stall_cycles: 3\n  stall_tolerance: 100.0/' stall.yaml
"$TRAILS" swarm stall.yaml > stall.out 2>&1 || fail "stall run failed: $(cat stall.out)"
grep -q "^path 0: 3 cycle(s), stalled" stall.out || fail "no stall after 3 cycles: $(cat stall.out)"
[ "$(tail -n1 stall/path_0/metrics.csv | cut -d, -f12)" = stalled ] || fail "metrics.csv: $(tail -n1 stall/path_0/metrics.csv)"
"$TRAILS" status stall | matches "path 0 .* stalled" || fail "status does not say stalled"
unfold_config stag.yaml stag
sed -i 's/^convergence:/convergence:\n  stagnation_window: 4\n  stagnation_tolerance: 100.0/' stag.yaml
"$TRAILS" swarm stag.yaml > stag.out 2>&1 || fail "stagnation run failed: $(cat stag.out)"
grep -q "^path 0: 4 cycle(s), stagnated" stag.out || fail "no stagnation after 4 cycles: $(cat stag.out)"
pass "the stall and stagnation rules stop a chain and say so"

# Bad input: unfold without weights, weights of the wrong length, an unknown CV name.
unfold_config bad1.yaml bad1
sed -i '/unfold_weights/d' bad1.yaml
expect_exit 2 "unfold without weights" "pathgennie.unfold_weights: unfold mode needs one weight per CV" "$TRAILS" swarm bad1.yaml
unfold_config bad2.yaml bad2
sed -i 's/unfold_weights: .*/unfold_weights: [1.0]/' bad2.yaml
expect_exit 2 "unfold weights of the wrong length" "unfold_weights has 1 values but the CVs give 2" "$TRAILS" swarm bad2.yaml
unfold_config bad3.yaml bad3
sed -i 's/cv_at_most: {x1: 0.3}/cv_at_most: {Q: 0.1}/' bad3.yaml
expect_exit 2 "unknown CV in cv_at_most" "convergence.cv_at_most.Q: no CV of that name; the CVs are: x0, x1" "$TRAILS" swarm bad3.yaml
unfold_config bad4.yaml bad4 "unfold_phase_cycles: 3"
sed -i 's/^  mode: unfold/  mode: escape/; /unfold_weights/d' bad4.yaml
expect_exit 2 "unfold keys in escape mode" "pathgennie.unfold_phase_cycles: applies to mode: unfold only" "$TRAILS" swarm bad4.yaml
for d in bad1 bad2 bad3 bad4; do [ ! -e "$d" ] || fail "a refused config created $d"; done
pass "bad unfold input exits 2 and writes nothing"
