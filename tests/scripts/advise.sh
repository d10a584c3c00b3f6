#!/usr/bin/env bash
# `trails advise` (docs/advise.md) on built-in campaigns whose costs are sleeps, so that which
# recommendation appears does not depend on the machine: start-up of 20 ms per walker against
# microseconds of integration (engine.synthetic_startup_ms) → spawning.step, with a value the
# configuration loader accepts; 20 ms walkers in full rounds → no recommendation; 8 walkers of
# 100 ms queued on 2 devices → execution.workers_per_device. The breakdown adds up, the run
# directory is left as it was, a run still being written can be advised, and a non-run, a
# swarm run and a run without a committed iteration exit 2.
source "$(dirname "$0")/lib/common.bash"

# json_check FILE PYTHON: runs PYTHON with `a` bound to the JSON in FILE.
json_check() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
a = json.load(open(sys.argv[1]))
exec(sys.argv[2])
PY
}

# Every row of the breakdown adds up to its wall time; the fields of the JSON form are there.
check_shape() {
  json_check "$1" '
rows = a["breakdown"]["iterations"]
assert len(rows) == a["iterations_committed"], (len(rows), a["iterations_committed"])
for r in rows + [a["breakdown"]["total"]]:
    parts = r["startup_s"] + r["integrate_s"] + r["idle_s"] + r["frame_s"] + (r["other_s"] or 0)
    assert abs(parts - r["wall_s"]) <= 1e-9 * max(1, r["wall_s"]), r
for key in ("startup_s", "step_s", "dispatch_s", "frame_s", "other_s", "iteration_s",
            "steps_per_s", "startup_fraction", "equation", "walkers", "steps", "slots"):
    assert key in a["model"], key
for key in ("slots", "devices", "workers_per_device", "persistent_workers", "backend"):
    assert key in a["execution"], key
for r in a["recommendations"]:
    assert set(r) == {"key", "value", "current", "speedup", "reason", "arithmetic", "note"}, r
    assert r["speedup"] >= a["options"]["min_speedup"], r
assert any(r["key"] == "execution.walkers_per_task" for r in a["not_recommended"])
' || fail "$1: the JSON form is not as documented: $(cat "$1")"
}

# Start-up dominates: longer walkers.
WALKERS=4 write_config startup.yaml startup
sed -i 's/^  synthetic_cost_ms: 0$/&\n  synthetic_startup_ms: 20/' startup.yaml
"$TRAILS" run startup.yaml --iterations 3 > /dev/null
before=$(snapshot startup)
"$TRAILS" advise startup --json > startup.json
"$TRAILS" advise startup > startup.txt
[ "$before" = "$(snapshot startup)" ] || fail "trails advise changed the run directory"
check_shape startup.json
json_check startup.json '
r = a["recommendations"][0]
assert r["key"] == "spawning.step" and r["current"] == 200, r
assert r["value"] > 200 and r["value"] % 10 == 0, r
assert a["model"]["startup_fraction"] > 0.5, a["model"]
assert a["execution"]["slots"] == 2 and a["execution"]["backend"] == "local", a["execution"]
assert any(x["key"] == "execution.persistent_workers" for x in a["not_recommended"])
assert not a["running"] and a["iterations_committed"] == 3
open("step.txt", "w").write(str(r["value"]))
' || fail "start-up run: $(cat startup.json)"
grep -qF "spawning.step: $(cat step.txt) (now 200)" startup.txt || fail "text lacks the step: $(cat startup.txt)"
grep -qF "where the time went" startup.txt || fail "text lacks the table: $(cat startup.txt)"
# The recommended value is one the configuration loader accepts.
sed "s/^  step: 200$/  step: $(cat step.txt)/; s#^outdir: startup#outdir: longer#" startup.yaml > longer.yaml
"$TRAILS" check longer.yaml > check.out 2>&1 || fail "trails check refuses the advice: $(cat check.out)"
pass "start-up 20 ms per walker: spawning.step $(cat step.txt)"

# Balanced: 20 ms walkers in two full rounds of 2 slots, negligible start-up.
WALKERS=4 SYNTHETIC_COST_MS=20 write_config balanced.yaml balanced
"$TRAILS" run balanced.yaml --iterations 3 > /dev/null
"$TRAILS" advise balanced --json > balanced.json
"$TRAILS" advise balanced > balanced.txt
check_shape balanced.json
json_check balanced.json 'assert a["recommendations"] == [], a["recommendations"]' ||
  fail "balanced run got a recommendation: $(cat balanced.json)"
grep -qF "recommendations: none" balanced.txt || fail "text does not say none: $(cat balanced.txt)"
pass "balanced run: no recommendation"

# Queued walkers on devices: 8 walkers of 100 ms on 2 devices x 1 worker take 4 rounds.
WALKERS=8 SYNTHETIC_COST_MS=100 write_config packed.yaml packed
printf 'execution:\n  devices: [0, 1]\n  workers_per_device: 1\n' >> packed.yaml
env -u CUDA_VISIBLE_DEVICES "$TRAILS" run packed.yaml --iterations 2 > /dev/null
"$TRAILS" advise packed --json > packed.json
check_shape packed.json
json_check packed.json '
keys = [r["key"] for r in a["recommendations"]]
assert keys == ["execution.workers_per_device"], keys
r = a["recommendations"][0]
assert r["value"] == 2 and r["current"] == 1, r
assert a["execution"]["devices"] == 2 and a["execution"]["slots"] == 2, a["execution"]
' || fail "device run: $(cat packed.json)"
pass "8 walkers queued on 2 devices: execution.workers_per_device 2"

# A run still being written: advise reads its committed iterations and disturbs nothing.
WALKERS=4 SYNTHETIC_COST_MS=50 write_config live.yaml live
"$TRAILS" run live.yaml --iterations 20 > live.out 2>&1 &
run_pid=$!
for _ in $(seq 600); do
  [ -e live/ledger.sqlite ] && [ "$(committed live 2> /dev/null || echo 0)" -ge 1 ] && break
  sleep 0.05
done
"$TRAILS" advise live --json > live.json || fail "advise of a running campaign failed"
wait "$run_pid" || fail "the campaign failed while advised: $(cat live.out)"
json_check live.json 'assert a["iterations_committed"] >= 1' || fail "live: $(cat live.json)"
[ "$(committed live)" = 20 ] || fail "the advised run did not commit every iteration"
pass "a running campaign is advised from its committed iterations"

# Errors: exit 2 with a message naming the directory.
mkdir empty
expect_exit 2 "a directory without a run" "empty is not a Trails run directory" "$TRAILS" advise empty
expect_exit 2 "a missing directory" "missing is not a Trails run directory" "$TRAILS" advise missing
sed -e "s#^workdir: .*#workdir: swarm#; s/max_cycle: 400/max_cycle: 2/" \
  "$ROOT/examples/swarm-muller-brown/input.yaml" > swarm.yaml
"$TRAILS" swarm swarm.yaml > swarm.out 2>&1 || fail "swarm failed: $(cat swarm.out)"
expect_exit 2 "a swarm run" "swarm is a swarm run" "$TRAILS" advise swarm
write_config crash.yaml crash
set +e
TRAILS_CRASH_AT=md "$TRAILS" run crash.yaml --iterations 2 > crash.out 2>&1
rc=$?
set -e
[ $rc -eq 137 ] || fail "expected SIGKILL (137) in iteration 0, got $rc: $(cat crash.out)"
expect_exit 2 "no committed iteration" "crash has no committed iteration yet" "$TRAILS" advise crash
pass "a non-run, a swarm run and a run without a committed iteration exit 2"
