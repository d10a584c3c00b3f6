#!/usr/bin/env bash
# execution.backend: slurm when things go wrong (docs/execution.md, "Scheduler arrays"), on a
# real private SLURM cluster, each ending byte-identical to the serial campaign: a walker whose
# engine throws, and an array task that dies (SIGSEGV) taking its packed walkers along, are run
# again alone (max_retries); sbatch failing twice with a QOS submit-limit message is retried
# (submit_retry_limit) while a permanent submit error stops the run at once (exit 1, the
# message quoted); the driver killed (kill -9) and its array cancelled (scancel) mid-iteration,
# then --resume, submits only the walkers without a result.
source "$(dirname "$0")/lib/common.bash"
source "$(dirname "$0")/lib/slurm.bash"
trap 'cancel_ours trails-rec; rm -rf "$WORK"' EXIT

ITER=3
serial_reference $ITER

# A walker whose engine throws once: attempt 2 runs that walker alone.
write_config thrown.yaml thrown
with_slurm thrown.yaml trails-rec
TRAILS_TEST_FAULT=throw:1:2 TRAILS_TEST_FAULT_ONCE=$WORK/once.thrown \
  "$TRAILS" run --log-level info thrown.yaml --iterations $ITER > thrown.out 2>&1 || fail "thrown: $(cat thrown.out)"
[ -f once.thrown ] || fail "the fault never fired: $(cat thrown.out)"
summaries thrown.out | grep -q "iteration 1: 8 walkers in 9 array task(s), 0 reused, 2 attempt(s), 2 submission(s)" ||
  fail "thrown: one walker resubmitted alone: $(summaries thrown.out)"
same_as_serial thrown t "a walker that threw, resubmitted"
pass "a walker that failed is resubmitted alone (max_retries) and the run is identical"

# An array task that dies with its pack of 4: the walkers without a marker run again.
write_config crashed.yaml crashed
with_slurm crashed.yaml trails-rec "walkers_per_task: 4"
TRAILS_TEST_FAULT=segv:2:5 TRAILS_TEST_FAULT_ONCE=$WORK/once.crashed \
  "$TRAILS" run --log-level info crashed.yaml --iterations $ITER > crashed.out 2>&1 || fail "crashed: $(cat crashed.out)"
summaries crashed.out | grep -q "iteration 2: 8 walkers in 3 array task(s), 0 reused, 2 attempt(s), 2 submission(s)" ||
  fail "crashed: the dead pack's walkers resubmitted: $(summaries crashed.out)"
same_as_serial crashed x "a dead array task, resubmitted"
pass "an array task killed by SIGSEGV: its walkers without markers run again, identical"

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
summaries qos.out | grep -q "iteration 0: 8 walkers in 8 array task(s), 0 reused, 1 attempt(s), 3 submission(s)" ||
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
summaries resume.out | grep -q "iteration 1: 8 walkers in $((8 - reused)) array task(s), $reused reused" ||
  fail "resume: only the missing walkers submitted: $(summaries resume.out)"
same_as_serial cancel r "scancel, kill -9 and --resume"
pass "kill -9 + scancel mid-iteration, --resume submits only the $((8 - reused)) missing walkers; identical"
