#!/usr/bin/env bash
# execution.backend: mpi (docs/execution.md, "MPI ranks"): a built-in campaign under
# `mpirun -n K trails run` (K = 2, 3, 4: rank 0 drives, the others run walkers) exports
# byte-identical CVs and lineage and writes byte-identical shards to the same campaign serial;
# without an MPI launcher an mpi configuration is refused (exit 2, nothing written), and so is a
# local configuration started with several ranks; `trails check` validates the backend and its
# cross-field rules; a walker that throws in its rank (TRAILS_TEST_FAULT=throw) fails alone; a
# rank that dies (TRAILS_TEST_FAULT=segv) ends the job, what was committed stays committed and
# --resume under mpirun continues to the serial result; so do rank 0 killed at a crash point
# (TRAILS_CRASH_AT) and kill -9 of mpirun mid-campaign, after which its ranks end by themselves;
# a rank stopped mid-walker (SIGSTOP) is found by its silent heartbeat and ends the job; a swarm
# on 2 worker ranks is bitwise the one-process swarm, and refused where launch and backend
# disagree or on scheduler arrays.
source "$(dirname "$0")/lib/common.bash"
source "$ROOT/tests/scripts/lib/swarm.bash"

# As root Open MPI wants --allow-run-as-root; the test machine may have fewer cores than ranks.
MPIRUN=(mpirun --allow-run-as-root --oversubscribe)

with_mpi() { with_execution "$1" "backend: mpi" "${@:2}"; }  # FILE [extra execution lines]

same_as_serial() {  # RUN_DIR PREFIX WHAT
  export_run "$1" "$2"
  cmp s.cvs.csv "$2.cvs.csv" || fail "$3: CV export differs from serial"
  cmp s.lineage.csv "$2.lineage.csv" || fail "$3: lineage export differs from serial"
}

MAX_WORKERS=1 write_config serial.yaml serial
"$TRAILS" run serial.yaml --iterations 8 > /dev/null
export_run serial s

for ranks in 3 2 4; do
  write_config "mpi$ranks.yaml" "mpi$ranks"
  with_mpi "mpi$ranks.yaml"
  "${MPIRUN[@]}" -n "$ranks" "$TRAILS" run "mpi$ranks.yaml" --iterations 8 > "mpi$ranks.out" 2>&1 ||
    fail "mpirun -n $ranks: $(cat "mpi$ranks.out")"
  grep -qF "$((ranks - 1)) worker(s) (MPI ranks)" "mpi$ranks.out" || fail "banner: $(cat "mpi$ranks.out")"
  same_as_serial "mpi$ranks" "m$ranks" "mpirun -n $ranks"
  for shard in serial/shards/iter_*.h5; do
    cmp "$shard" "mpi$ranks/shards/$(basename "$shard")" || fail "-n $ranks: $(basename "$shard") differs"
  done
  pass "mpirun -n $ranks ($((ranks - 1)) worker ranks) is bitwise identical to serial"
done

# Without mpirun: exit 2, a message that says how to launch, nothing written.
expect_exit 2 "backend mpi without mpirun" "mpirun -n K trails run" "$TRAILS" run mpi3.yaml --iterations 9 --resume
write_config lone.yaml lone
with_mpi lone.yaml
expect_exit 2 "backend mpi without mpirun" "was not started by an MPI launcher" "$TRAILS" run lone.yaml
[ ! -e lone ] || fail "a refused mpi run wrote $(ls lone)"
# One rank only under mpirun: nobody to run the walkers.
expect_exit 2 "mpirun -n 1" "is the only rank" "${MPIRUN[@]}" -n 1 "$TRAILS" run lone.yaml
[ ! -e lone ] || fail "a refused mpi run wrote $(ls lone)"
# A local configuration started with ranks would run K campaigns on one directory.
write_config local.yaml local
expect_exit 2 "local backend under mpirun" "execution.backend: mpi" "${MPIRUN[@]}" -n 3 "$TRAILS" run local.yaml
[ ! -e local ] || fail "a refused run wrote $(ls local)"
pass "backend mpi without ranks, and ranks without backend mpi, are refused (exit 2, nothing written)"

# trails check: the backend is accepted; its cross-field rules are reported.
"$TRAILS" check lone.yaml > /dev/null || fail "trails check refused backend: mpi"
write_config timeout.yaml timeout
with_mpi timeout.yaml "walker_timeout: 5"
expect_exit 2 "walker_timeout with mpi" "execution.walker_timeout" "$TRAILS" check timeout.yaml
grep -qF "cannot stop one rank" err.txt out.txt || fail "the reason is not given: $(cat err.txt)"
write_config persistent.yaml persistent
with_mpi persistent.yaml "persistent_workers: true"
expect_exit 2 "persistent_workers with mpi" "execution.persistent_workers" "$TRAILS" check persistent.yaml
pass "trails check validates execution.backend: mpi and its cross-field rules"

# A walker that throws in its rank fails alone; the rank serves on.
write_config throw.yaml throw
echo "min_success_fraction: 0.5" >> throw.yaml
with_mpi throw.yaml
TRAILS_TEST_FAULT=throw:1:2 "${MPIRUN[@]}" -n 3 "$TRAILS" run throw.yaml --iterations 4 > throw.out 2> throw.err ||
  fail "a throwing walker stopped the campaign: $(cat throw.err)"
grep -q "walker 2 of iteration 1" throw.err || fail "the failed walker is not reported: $(cat throw.err)"
grep -qF "TRAILS_TEST_FAULT: walker 2 of iteration 1 threw" throw.err ||
  fail "the walker's error text is missing: $(cat throw.err)"
expect_log_row throw 1 7 1
expect_log_row throw 2 8 0
[ "$(committed throw)" -eq 4 ] || fail "the campaign did not go on after the failure"
pass "a walker that throws in its rank fails only itself and the campaign continues"

# A rank that dies ends the job; the committed iterations stay; --resume under mpirun continues.
write_config died.yaml died
with_mpi died.yaml
set +e
TRAILS_TEST_FAULT=segv:2:1 "${MPIRUN[@]}" -n 3 "$TRAILS" run died.yaml --iterations 8 > died.out 2>&1
rc=$?
set -e
[ $rc -ne 0 ] || fail "the job went on after a rank died: $(cat died.out)"
grep -q "signal 11" died.out || fail "mpirun does not say how the rank ended: $(cat died.out)"
[ "$(committed died)" -eq 2 ] || fail "expected iterations 0 and 1 committed, got $(committed died)"
"${MPIRUN[@]}" -n 3 "$TRAILS" run died.yaml --iterations 8 --resume > /dev/null 2>&1 ||
  fail "--resume after a rank died failed"
same_as_serial died d "a dead rank, then --resume"
pass "a rank that dies ends the job (exit $rc) with 2 iterations kept; --resume gives the serial result"

# A hung rank: walker 2 of iteration 1 stops its rank (SIGSTOP), so the rank's heartbeats stop;
# after execution.heartbeat_timeout rank 0 names the walker and the rank and ends the job
# (exit 1: MPI cannot replace a rank); iteration 0 stays committed and --resume (the fault fires
# once) gives the serial result. A walker that loops inside a live rank keeps it heartbeating:
# that is documented, not tested (nothing ends it; walker_timeout is refused with mpi).
write_config hung.yaml hung
with_mpi hung.yaml "heartbeat_timeout: 3"
set +e
TRAILS_TEST_FAULT=stop:1:2 TRAILS_TEST_FAULT_ONCE=$WORK/once.hung \
  timeout 120 "${MPIRUN[@]}" -n 3 "$TRAILS" run hung.yaml --iterations 8 > hung.out 2>&1
rc=$?
set -e
[ $rc -eq 1 ] || fail "a hung rank: exit $rc, expected 1: $(cat hung.out)"
grep -qE "walker 2 of iteration 1: MPI rank [12] on .* sent no heartbeat for 3 s" hung.out ||
  fail "the hung rank is not named: $(cat hung.out)"
[ "$(committed hung)" -eq 1 ] || fail "expected iteration 0 committed, got $(committed hung)"
TRAILS_TEST_FAULT=stop:1:2 TRAILS_TEST_FAULT_ONCE=$WORK/once.hung \
  "${MPIRUN[@]}" -n 3 "$TRAILS" run hung.yaml --iterations 8 --resume > /dev/null 2>&1 ||
  fail "--resume after a hung rank failed"
same_as_serial hung h "a hung rank, then --resume"
pass "a rank silent past heartbeat_timeout ends the job (exit 1) naming it; --resume gives the serial result"

# Rank 0 killed at a crash point (SIGKILL inside the commit), then --resume under mpirun.
for point in shard-renamed:3 ledger-commit:5; do
  name=crash${point%%:*}
  write_config "$name.yaml" "$name"
  with_mpi "$name.yaml"
  set +e
  TRAILS_CRASH_AT=$point "${MPIRUN[@]}" -n 3 "$TRAILS" run "$name.yaml" --iterations 8 > "$name.out" 2>&1
  rc=$?
  set -e
  [ $rc -ne 0 ] || fail "$point: the job did not stop: $(cat "$name.out")"
  "${MPIRUN[@]}" -n 3 "$TRAILS" run "$name.yaml" --iterations 8 --resume > /dev/null 2>&1 ||
    fail "--resume after $point failed"
  same_as_serial "$name" "$name" "rank 0 killed at $point, then --resume"
done
pass "rank 0 SIGKILLed at shard-renamed and ledger-commit, --resume under mpirun: identical to serial"

# kill -9 of mpirun mid-campaign: Open MPI 4.1 tells its ranks nothing (each is its own process
# group), so they notice their launcher is gone and end by themselves, releasing the run's lock;
# then --resume under mpirun.
# Walkers slow enough (200 ms each) that a loaded machine polls the first commit long before the
# eighth.
SYNTHETIC_COST_MS=200 write_config killed.yaml killed
with_mpi killed.yaml
"${MPIRUN[@]}" -n 3 "$TRAILS" run killed.yaml --iterations 8 > killed.out 2>&1 &
pid=$!
for _ in $(seq 300); do  # until at least one iteration is committed
  [ -f killed/ledger.sqlite ] && [ "$(committed killed 2>/dev/null || echo 0)" -ge 1 ] && break
  sleep 0.1
done
ranks=$(pgrep -P "$pid" || true)
[ "$(echo "$ranks" | wc -w)" -eq 3 ] || fail "expected 3 rank processes under mpirun, found: $ranks"
kill -9 "$pid"
wait $pid 2>/dev/null || true
for r in $ranks; do
  for _ in $(seq 200); do kill -0 "$r" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$r" 2>/dev/null; then
    kill -9 $ranks 2>/dev/null || true
    fail "rank process $r outlived its killed mpirun by 20 s"
  fi
done
before=$(committed killed)
[ "$before" -lt 8 ] || fail "the run finished before the kill; nothing tested"
"${MPIRUN[@]}" -n 3 "$TRAILS" run killed.yaml --iterations 8 --resume > /dev/null 2>&1 ||
  fail "--resume after kill -9 of mpirun failed"
same_as_serial killed k "kill -9 of mpirun, then --resume"
pass "kill -9 of mpirun after $before iteration(s): its ranks end by themselves; --resume gives the serial result"

# trails swarm on MPI ranks (docs/execution.md, "The swarm and the backends"): rank 0 drives
# the swarm, ranks 1..2 run its trials, and the reactive path is bitwise the one-process swarm's;
# the launch and the backend must agree, and scheduler arrays are refused (exit 2, nothing
# written).
swarm_small swarm_serial.yaml swarm_serial
"$TRAILS" swarm swarm_serial.yaml > swarm_serial.out 2>&1 || fail "serial swarm: $(cat swarm_serial.out)"
swarm_small swarm_mpi.yaml swarm_mpi "backend: mpi"
"${MPIRUN[@]}" -n 3 "$TRAILS" swarm swarm_mpi.yaml > swarm_mpi.out 2>&1 ||
  fail "trails swarm under mpirun -n 3: $(cat swarm_mpi.out)"
grep -qF "2 slot(s) (MPI ranks)" swarm_mpi.out || fail "swarm banner: $(cat swarm_mpi.out)"
diff <(swarm_fingerprint swarm_serial) <(swarm_fingerprint swarm_mpi) > /dev/null ||
  fail "the swarm on 2 MPI worker ranks differs from the one-process swarm"
export_run swarm_serial sws && export_run swarm_mpi swm
cmp sws.cvs.csv swm.cvs.csv || fail "the MPI swarm's CV export differs"
pass "trails swarm under mpirun -n 3 (2 worker ranks) is bitwise the one-process swarm"

expect_exit 2 "a local swarm under mpirun" "execution.backend: mpi to run the trials" \
  "${MPIRUN[@]}" -n 2 "$TRAILS" swarm swarm_serial.yaml --resume
swarm_small swarm_lone.yaml swarm_lone "backend: mpi"
expect_exit 2 "an mpi swarm without mpirun" "mpirun -n K trails swarm" "$TRAILS" swarm swarm_lone.yaml
swarm_small swarm_slurm.yaml swarm_slurm "backend: slurm"
expect_exit 2 "a swarm on slurm arrays" "execution.backend: a swarm does not run on slurm arrays" \
  "$TRAILS" swarm swarm_slurm.yaml
grep -qF "run \`trails swarm\` inside one allocation" err.txt || fail "no advice: $(cat err.txt)"
swarm_small swarm_devices.yaml swarm_devices "devices: [0]"
expect_exit 2 "execution.devices in a swarm" "write pathgennie.devices instead" \
  "$TRAILS" swarm swarm_devices.yaml
for d in swarm_lone swarm_slurm swarm_devices; do [ ! -e "$d" ] || fail "a refused swarm wrote $d"; done
pass "a swarm's launch and backend must agree; arrays and execution.devices are refused (exit 2)"
