#!/usr/bin/env bash
# One run per run directory for every run kind (docs/reliability.md, "Signals, child processes
# and concurrent runs"; store/run_directory_lock.h):
# 1. eight fresh `trails swarm` into one new workdir: exactly one runs, the others exit 2 saying
#    another run holds it; nothing damaged (the winner resumes), three rounds;
# 2. `trails status` of a live swarm says running and counts cycles;
# 3. SIGTERM stops a swarm with the `--resume` command that continues it, and that command works;
# 4. during a resumed campaign, status shows the resumed run's target, not the stored one.
source "$(dirname "$0")/lib/common.bash"
source "$ROOT/tests/scripts/lib/swarm.bash"

slow_swarm() {  # FILE WORKDIR CYCLES: the Müller–Brown swarm, 2 ms per trial, CYCLES cycles
  swarm_config "$1" "$2"
  sed -i "s/^  max_cycle: .*/  max_cycle: $3/; s/^  distance_to_target: .*/  distance_to_target: 0.0001/" "$1"
  sed -i 's/^  mass: 1.0$/  mass: 1.0\n  synthetic_cost_ms: 2/' "$1"
}

# --- 1. concurrent swarms ---
slow_swarm conc.yaml conc 6
for round in 1 2 3; do
  rm -rf conc
  start_together 8 conc "$TRAILS" swarm conc.yaml
  one_winner 8 conc "round $round, swarm" "another trails process is running in $WORK/conc;" "conc already holds a run"
  "$TRAILS" status conc --json > st.json || fail "round $round: status: $(cat st.json)"
  sed -i 's/^  max_cycle: 6$/  max_cycle: 7/' conc.yaml
  "$TRAILS" swarm conc.yaml --resume > resumed.out 2>&1 || fail "round $round: resume: $(cat resumed.out)"
  sed -i 's/^  max_cycle: 7$/  max_cycle: 6/' conc.yaml
done
pass "8 concurrent swarms into one workdir: one ran, the others exit 2, the run resumes (3 rounds)"

# --- 2. and 3. a live swarm: status, then SIGTERM ---
slow_swarm live.yaml live 400
"$TRAILS" swarm live.yaml > live.out 2> live.err &
pid=$!
# until_status RUN FILE PYTHON_CONDITION: polls `trails status RUN --json` into FILE (every
# 0.1 s, at most 20 s) until the condition on its JSON `s` holds; returns 1 if it never does.
until_status() {
  local run=$1 file=$2 condition=$3
  for _ in $(seq 1 200); do
    if "$TRAILS" status "$run" --json > "$file" 2> /dev/null &&
       /usr/bin/python3 -c "import json,sys; s=json.load(open('$file')); sys.exit(0 if $condition else 1)"; then
      return 0
    fi
    sleep 0.1
  done
  return 1
}
seen=""
until_status live live.json 's["running"] and s["kind"] == "swarm" and s["iterations_committed"] >= 1' && seen=yes
[ -n "$seen" ] || fail "status never saw the live swarm running: $(cat live.json)"
"$TRAILS" status live > live.txt
grep -q "^state  *running" live.txt || fail "status text: $(cat live.txt)"
grep -q "^cycles  *[0-9]* committed" live.txt || fail "status does not count cycles: $(cat live.txt)"
! grep -q "^iterations" live.txt || fail "a swarm's status speaks of iterations: $(cat live.txt)"
kill -TERM $pid
set +e
wait $pid
rc=$?
set -e
[ $rc -eq 143 ] || fail "SIGTERM: exit $rc: $(cat live.err)"
cmd=$(sed -n 's/^resume with: //p' live.err)
case "$cmd" in *" swarm live.yaml --resume") ;; *) fail "no --resume command: $(cat live.err)" ;; esac
"$TRAILS" status live --json | matches '"running": false' || fail "status after the stop says running"
n=$(committed live)
sed -i "s/^  max_cycle: .*/  max_cycle: $((n + 2))/" live.yaml
eval "$cmd" > again.out 2>&1 || fail "the printed command failed: $cmd: $(cat again.out)"
pass "a live swarm: status says running and counts cycles; SIGTERM prints a --resume that works"

# --- 4. a resumed campaign's target ---
SYNTHETIC_COST_MS=100 write_config camp.yaml camp
"$TRAILS" run camp.yaml --iterations 2 > /dev/null
"$TRAILS" run camp.yaml --iterations 8 --resume > camp.out 2>&1 &
pid=$!
seen=""
until_status camp camp.json 's["running"] and s.get("target_iterations") == 8' && seen=yes
[ -n "$seen" ] || fail "status never showed the resumed campaign's target 8: $(cat camp.json)"
/usr/bin/python3 - camp.json <<'PY' || fail "status of a resumed campaign: $(cat camp.json)"
import json, sys
s = json.load(open(sys.argv[1]))
assert s["target_iterations"] == 8, s["target_iterations"]
assert s["eta_s"] > 0, s["eta_s"]
PY
wait $pid || fail "the resumed campaign failed: $(cat camp.out)"
pass "status during a resumed campaign shows its target (8) and a non-zero ETA"
