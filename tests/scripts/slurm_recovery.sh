#!/usr/bin/env bash
# execution.backend: slurm when things go wrong (docs/execution.md, "Scheduler arrays"), on a
# real private SLURM cluster, each ending byte-identical to the serial campaign: a walker whose
# engine throws, and an array task that dies (SIGSEGV) taking its packed walkers along, are run
# again alone (max_retries); sbatch failing twice with a QOS submit-limit message is retried
# (submit_retry_limit) while a permanent submit error stops the run at once (exit 1, the
# message quoted); the driver killed (kill -9) and its array cancelled (scancel) mid-iteration,
# then --resume, submits only the walkers without a result; an array task whose heartbeat stops
# (SIGSTOP) or whose walker passes walker_timeout is cancelled alone and its walkers rerun.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/slurm.bash"
trap 'cancel_ours trails-rec; rm -rf "$WORK"' EXIT

ITER=3
serial_reference $ITER

# faulty_run NAME FAULT [extra execution lines]: the campaign NAME on SLURM with the test fault
# FAULT (KIND:ITERATION:WALKER) fired once, which must fire and must not stop the run.
faulty_run() {
  local name=$1 fault=$2
  write_config "$name.yaml" "$name"
  with_slurm "$name.yaml" trails-rec "${@:3}"
  TRAILS_TEST_FAULT=$fault TRAILS_TEST_FAULT_ONCE=$WORK/once.$name \
    "$TRAILS" run --log-level info "$name.yaml" --iterations $ITER > "$name.out" 2>&1 || fail "$name: $(cat "$name.out")"
  [ -f "once.$name" ] || fail "$name: the fault never fired: $(cat "$name.out")"
}

# A walker whose engine throws once: attempt 2 runs that walker alone.
faulty_run thrown throw:1:2
summaries thrown.out | matches "iteration 1: 8 walkers in 9 array task(s), 0 reused, 2 attempt(s), 2 submission(s)" ||
  fail "thrown: one walker resubmitted alone: $(summaries thrown.out)"
same_as_serial thrown t "a walker that threw, resubmitted"
pass "a walker that failed is resubmitted alone (max_retries) and the run is identical"

# An array task that dies with its pack of 4: the walkers without a marker run again.
faulty_run crashed segv:2:5 "walkers_per_task: 4"
summaries crashed.out | matches "iteration 2: 8 walkers in 3 array task(s), 0 reused, 2 attempt(s), 2 submission(s)" ||
  fail "crashed: the dead pack's walkers resubmitted: $(summaries crashed.out)"
same_as_serial crashed x "a dead array task, resubmitted"
pass "an array task killed by SIGSEGV: its walkers without markers run again, identical"

# A hung array task: walker 2 of iteration 1 stops its process (SIGSTOP), so the task's heartbeat
# stops; after heartbeat_timeout the driver cancels that element alone and attempt 2 runs its
# walkers without a marker (2 and 3: 0 and 1 had finished).
faulty_run stopped stop:1:2 "walkers_per_task: 4" "heartbeat_timeout: 3"
grep -qE "slurm job [0-9]+ element 0 \(walkers 0,1,2,3\): its heartbeat stopped at count [0-9]+ [0-9]+ s ago \(execution.heartbeat_timeout: 3 s\); cancelling that element" stopped.out ||
  fail "stopped: the hung element is not named: $(cat stopped.out)"
summaries stopped.out | matches "iteration 1: 8 walkers in 3 array task(s), 0 reused, 2 attempt(s), 2 submission(s)" ||
  fail "stopped: the hung element's walkers resubmitted: $(summaries stopped.out)"
same_as_serial stopped h "a hung array task, cancelled by heartbeat"
pass "an array task whose heartbeat stops is cancelled alone, its unfinished walkers rerun; identical"

# A walker that hangs inside a live task (heartbeats go on): walker_timeout cancels its element.
faulty_run hung hang:2:5 "walker_timeout: 2"
grep -qE "element 5 \(walkers 5\): task [0-9]+ has run [0-9]+ s, over execution.walker_timeout \(2 s\)" hung.out ||
  fail "hung: the walker over its time is not named: $(cat hung.out)"
summaries hung.out | matches "iteration 2: 8 walkers in 9 array task(s), 0 reused, 2 attempt(s), 2 submission(s)" ||
  fail "hung: the hung walker resubmitted alone: $(summaries hung.out)"
same_as_serial hung w "a walker over walker_timeout, cancelled"
pass "a walker past walker_timeout has its array element cancelled and runs again; identical"

# sbatch refusing twice with a QOS limit, then the real one.
mkdir -p qosbin
cat > qosbin/sbatch <<SH
#!/bin/bash
n=\$(cat "$WORK/qos.count" 2>/dev/null || echo 0)
echo \$((n + 1)) > "$WORK/qos.count"
if [ "\$n" -lt 2 ]; then
  echo "sbatch: error: QOSMaxSubmitJobPerUserLimit" >&2
  echo "sbatch: error: Batch job submission failed: Job violates accounting/QOS policy (job submit limit, user's size and/or time limits)" >&2
  exit 1
fi
exec /usr/bin/sbatch "\$@"
SH
chmod +x qosbin/sbatch
write_config qos.yaml qos
with_slurm qos.yaml trails-rec
PATH=$WORK/qosbin:$PATH "$TRAILS" run --log-level info qos.yaml --iterations $ITER > qos.out 2>&1 || fail "qos: $(cat qos.out)"
[ "$(grep -c "failed for a passing reason" qos.out)" -eq 2 ] || fail "qos: two retries expected: $(cat qos.out)"
summaries qos.out | matches "iteration 0: 8 walkers in 8 array task(s), 0 reused, 1 attempt(s), 3 submission(s)" ||
  fail "qos: three submissions in iteration 0: $(summaries qos.out)"
same_as_serial qos q "after transient submit errors"
pass "sbatch failing twice with a QOS submit limit is retried; identical"

# A permanent submit error: no retry, the run stops with sbatch's message, nothing committed.
mkdir -p badbin
printf '#!/bin/bash\necho "sbatch: error: Batch job submission failed: Invalid partition name specified" >&2\nexit 1\n' > badbin/sbatch
chmod +x badbin/sbatch
write_config bad.yaml bad
with_slurm bad.yaml trails-rec
PATH=$WORK/badbin:$PATH expect_exit 1 "permanent submit error" "Invalid partition name specified" \
  "$TRAILS" run --log-level info bad.yaml --iterations 1
grep -q "passing reason" out.txt err.txt && fail "a permanent error was retried"
pass "a permanent submit error stops the run at once, quoting sbatch"

# kill -9 of the driver and scancel of its array mid-iteration, then --resume.
SYNTHETIC_COST_MS=400 write_config cancel.yaml cancel
with_slurm cancel.yaml trails-rec "max_in_flight: 2"
"$TRAILS" run --log-level info cancel.yaml --iterations $ITER > cancel.out 2>&1 &
driver=$!
until [ "$(ls cancel/jobs/iter_1/result_*.ok 2>/dev/null | wc -l)" -ge 3 ]; do
  kill -0 $driver 2>/dev/null || fail "cancel: the run ended early: $(cat cancel.out)"
  sleep 0.1
done
kill -9 $driver
wait $driver 2>/dev/null || true
scancel --name trails-rec
done_before=$(ls cancel/jobs/iter_1/result_*.ok | wc -l)
"$TRAILS" run --log-level info cancel.yaml --iterations $ITER --resume > resume.out 2>&1 || fail "resume: $(cat resume.out)"
grep -qE "slurm: [0-9]+ of 8 walkers of iteration 1 already have results" resume.out ||
  fail "resume: no walker reused: $(cat resume.out)"
reused=$(sed -nE 's/.*slurm: ([0-9]+) of 8 walkers of iteration 1 already.*/\1/p' resume.out)
[ "$reused" -ge "$done_before" ] || fail "resume: reused $reused of $done_before finished walkers"
summaries resume.out | matches "iteration 1: 8 walkers in $((8 - reused)) array task(s), $reused reused" ||
  fail "resume: only the missing walkers submitted: $(summaries resume.out)"
same_as_serial cancel r "scancel, kill -9 and --resume"
pass "kill -9 + scancel mid-iteration, --resume submits only the $((8 - reused)) missing walkers; identical"
