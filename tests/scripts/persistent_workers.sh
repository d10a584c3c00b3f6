#!/usr/bin/env bash
# execution.persistent_workers (docs/execution.md, "Persistent worker processes"): a built-in
# campaign run by `trails worker` processes exports byte-identical CVs and lineage and writes
# byte-identical shards to the same campaign serial; a walker whose worker crashes (injected
# with TRAILS_TEST_FAULT=segv:ITERATION:WALKER, a test-only hook of the built-in engine) is
# recorded as failed with the signal in its error and the campaign goes on; kill -9 of the
# driver, then --resume, gives the same export as the uninterrupted serial run; walker_timeout
# fails only the hung walker; an OpenMM campaign through workers equals its serial run; a swarm
# on 2 worker processes is bitwise the one-process swarm.
source "$(dirname "$0")/lib/common.bash"
source "$ROOT/tests/scripts/lib/swarm.bash"

with_workers() { with_execution "$1" "persistent_workers: true" "${@:2}"; }  # FILE [extra execution lines]

MAX_WORKERS=1 write_config serial.yaml serial
MAX_WORKERS=3 write_config procs.yaml procs
with_workers procs.yaml
"$TRAILS" run serial.yaml --iterations 8 > /dev/null
"$TRAILS" run procs.yaml --iterations 8 > procs.out
grep -qF "3 worker(s) (persistent processes)" procs.out || fail "banner: $(cat procs.out)"
export_run serial s
export_run procs p
cmp s.cvs.csv p.cvs.csv || fail "CV exports differ between serial and worker processes"
cmp s.lineage.csv p.lineage.csv || fail "lineage exports differ"
for shard in serial/shards/iter_*.h5; do
  cmp "$shard" "procs/shards/$(basename "$shard")" || fail "$(basename "$shard") differs"
done
pass "serial and 3 worker processes are bitwise identical ($(wc -l < s.cvs.csv) rows)"

# walker_timeout without persistent workers is refused, naming both keys.
MAX_WORKERS=2 write_config timeout.yaml timeout
printf 'execution:\n  walker_timeout: 5\n' >> timeout.yaml
expect_exit 2 "walker_timeout on threads" "execution.persistent_workers" "$TRAILS" check timeout.yaml
grep -qF "execution.walker_timeout" err.txt out.txt || fail "the message does not name walker_timeout"
pass "walker_timeout without persistent_workers is a config error"

# A worker that segfaults in walker 2 of iteration 1 fails that walker only.
MAX_WORKERS=2 write_config crash.yaml crash
echo "min_success_fraction: 0.5" >> crash.yaml
with_workers crash.yaml
TRAILS_TEST_FAULT=segv:1:2 "$TRAILS" run crash.yaml --iterations 4 > crash.out 2> crash.err ||
  fail "a crashing worker stopped the campaign: $(cat crash.err)"
grep -q "walker 2 of iteration 1" crash.err || fail "the failed walker is not reported: $(cat crash.err)"
grep -q "SIGSEGV" crash.err || fail "the signal is not named: $(cat crash.err)"
grep -q "TRAILS_TEST_FAULT: segv" crash.err || fail "the worker's stderr tail is missing: $(cat crash.err)"
expect_log_row crash 1 7 1
expect_log_row crash 2 8 0
[ "$(committed crash)" -eq 4 ] || fail "the campaign did not go on after the crash"
pass "a segfaulting worker fails only its walker and the campaign continues"

# execution.walker_timeout kills only the worker of the hung walker 3 of iteration 1.
MAX_WORKERS=2 write_config hang.yaml hang
echo "min_success_fraction: 0.5" >> hang.yaml
with_workers hang.yaml "walker_timeout: 1"
TRAILS_TEST_FAULT=hang:1:3 "$TRAILS" run hang.yaml --iterations 3 > hang.out 2> hang.err ||
  fail "a hung walker stopped the campaign: $(cat hang.err)"
grep -qF "walker 3 of iteration 1: walker exceeded execution.walker_timeout (1 s)" hang.err ||
  fail "the timeout is not reported: $(cat hang.err)"
expect_log_row hang 1 7 1
[ "$(committed hang)" -eq 3 ] || fail "the campaign did not go on after the timeout"
pass "walker_timeout fails only the hung walker and the campaign continues"

# kill -9 of the driver mid-run, then --resume: identical to the serial reference.
SYNTHETIC_COST_MS=60 MAX_WORKERS=3 write_config killed.yaml killed
with_workers killed.yaml
"$TRAILS" run killed.yaml --iterations 8 > /dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do  # until at least one iteration is committed
  [ -f killed/ledger.sqlite ] && [ "$(committed killed 2>/dev/null || echo 0)" -ge 1 ] && break
  sleep 0.1
done
kill -9 $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
before=$(committed killed)
[ "$before" -lt 8 ] || fail "the run finished before the kill; nothing tested"
"$TRAILS" run killed.yaml --iterations 8 --resume > /dev/null || fail "resume after kill -9 failed"
export_run killed k
cmp s.cvs.csv k.cvs.csv || fail "CV export after kill -9 and --resume differs from serial"
cmp s.lineage.csv k.lineage.csv || fail "lineage export after kill -9 and --resume differs"
pass "kill -9 of the driver after $before iteration(s), --resume: identical to serial"

# OpenMM through worker processes: the engine spec and the prepared system reach the workers,
# and the alanine-dipeptide campaign (Reference platform) is identical to serial.
alad_config omm-serial.yaml omm-serial 1
alad_config omm-procs.yaml omm-procs 2
with_workers omm-procs.yaml
"$TRAILS" run omm-serial.yaml > omm-serial.out 2>&1 || fail "openmm serial: $(cat omm-serial.out)"
"$TRAILS" run omm-procs.yaml > omm-procs.out 2>&1 || fail "openmm workers: $(cat omm-procs.out)"
export_run omm-serial os
export_run omm-procs op
cmp os.cvs.csv op.cvs.csv || fail "OpenMM CV exports differ between serial and worker processes"
cmp os.lineage.csv op.lineage.csv || fail "OpenMM lineage exports differ"
pass "OpenMM: serial and 2 worker processes are identical ($(wc -l < os.cvs.csv) rows)"

# A swarm on 2 persistent worker processes (docs/execution.md, "The swarm and the backends"):
# the same reactive path, bit for bit, as the swarm in one process on one slot.
swarm_small swarm_serial.yaml swarm_serial
swarm_small swarm_procs.yaml swarm_procs "persistent_workers: true"
sed -i 's#^  seed: \(.*\)#  seed: \1\n  devices: [0, 1]#' swarm_procs.yaml
"$TRAILS" swarm swarm_serial.yaml > swarm_serial.out 2>&1 || fail "serial swarm: $(cat swarm_serial.out)"
"$TRAILS" swarm swarm_procs.yaml > swarm_procs.out 2>&1 || fail "swarm on workers: $(cat swarm_procs.out)"
grep -qF "2 slot(s) (persistent processes)" swarm_procs.out || fail "banner: $(cat swarm_procs.out)"
diff <(swarm_fingerprint swarm_serial) <(swarm_fingerprint swarm_procs) > /dev/null ||
  fail "the swarm on 2 worker processes differs from the one-process swarm"
pass "a swarm on 2 worker processes is bitwise the one-process swarm"
