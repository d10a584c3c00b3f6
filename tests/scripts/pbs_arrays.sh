#!/usr/bin/env bash
# execution.backend: pbs | torque (docs/execution.md, "Scheduler arrays"). Debian has no PBS or
# Torque server, so fake qsub/qstat (first on PATH) replay the recorded outputs of
# tests/data/scheduler/ and run each array element locally with PBS_ARRAY_INDEX (PBS) or
# PBS_ARRAYID (Torque) set, as the server would. Checked: the campaign exports byte-identical to
# serial on both; the array limit is read from `qstat -Bf` (max_array_size = 3 / Torque's
# max_job_array_size = 3) and max_in_flight: 2 is the driver's throttle (PBS has no %N): every
# array holds at most 2 elements, and at each submission the walkers of the earlier arrays that
# have no success marker yet and the new array's together are at most 2 (so none goes out while
# another array's walkers run); the rendered #PBS
# scripts carry -J / -t and the resources; SIGTERM to the driver mid-iteration keeps the
# finished walkers, runs `qdel` on the array in flight (a fake qdel records it), exits 143, and
# --resume is byte-identical to serial.
source "$(dirname "$0")/lib/common.bash"

DATA=$ROOT/tests/data/scheduler
mkdir -p fakebin jobs
# qsub SCRIPT: prints the recorded job id with its number replaced by a counter, runs the
# elements in the background (one after another) and keeps the script. Each submission is an
# event in jobs/events: the script's folder (the iteration's jobs/iter_N), the array's elements
# and the success markers (result_*.ok, one per finished walker) in that folder at that moment,
# from which the test checks the driver's throttle: markers only appear, so a count taken after
# the driver decided to submit never shows fewer than the driver saw.
cat > fakebin/qsub <<SH
#!/bin/bash
set -euo pipefail
kind=\$FAKE_PBS_KIND
n=\$(( \$(cat "$WORK/jobs/count" 2>/dev/null || echo 0) + 1 ))
echo \$n > "$WORK/jobs/count"
cp "\$1" "$WORK/jobs/script_\$n.sh"
range=\$(sed -nE 's/^#PBS -[Jt] 0-([0-9]+)\$/\1/p' "\$1")
echo "\$((range + 1))" >> "$WORK/jobs/elements"
dir=\$(dirname "\$(readlink -f "\$1")")
echo "\$dir \$((range + 1)) \$(find "\$dir" -maxdepth 1 -name 'result_*.ok' | wc -l)" >> "$WORK/jobs/events"
var=PBS_ARRAY_INDEX; [ "\$kind" = torque ] && var=PBS_ARRAYID
touch "$WORK/jobs/\$n.running"
( for i in \$(seq 0 "\$range"); do env "\$var=\$i" bash "\$1" > "$WORK/jobs/\$n.\$i.log" 2>&1 || true; done
  rm "$WORK/jobs/\$n.running" ) > /dev/null 2>&1 &
echo \$! > "$WORK/jobs/\$n.pid"
sed "s/^[0-9]*/\$n/" "$DATA/\${kind}_qsub.txt"
SH
# qstat -t ID: the recorded listing while the elements run, then the recorded end (PBS Pro
# forgets a finished array: exit 35 with its message; Torque lists its elements as C).
# qstat -B -f: the recorded server attributes.
cat > fakebin/qstat <<SH
#!/bin/bash
kind=\$FAKE_PBS_KIND
if [ "\$1" = -B ]; then cat "$DATA/\${kind}_qstat_Bf.txt"; exit 0; fi
id=\$2 n=\${2%%[*}
if [ -e "$WORK/jobs/\$n.running" ]; then
  sed -E "s/^[0-9]+\\[/\$n[/" "$DATA/\${kind}_qstat_running.txt"
elif [ "\$kind" = pbs ]; then
  sed "s/^1234/\$n/" "$DATA/pbs_qstat_finished_stderr.txt" >&2; exit 35
else
  sed -E "s/^[0-9]+\\[/\$n[/" "$DATA/torque_qstat_done.txt"
fi
SH
# qdel ID: records its arguments and starts no further element of that array (the element
# running finishes: a real server would end it, which the driver does not wait for).
cat > fakebin/qdel <<SH
#!/bin/bash
echo "\$*" >> "$WORK/qdel.calls"
n=\${1%%[*}
kill "\$(cat "$WORK/jobs/\$n.pid")" 2> /dev/null || true
rm -f "$WORK/jobs/\$n.running"
SH
chmod +x fakebin/*
export PATH=$WORK/fakebin:$PATH

MAX_WORKERS=1 write_config serial.yaml serial
"$TRAILS" run --log-level info serial.yaml --iterations 2 > /dev/null
export_run serial s

for kind in pbs torque; do
  rm -rf jobs/*
  SYNTHETIC_COST_MS=500 write_config "$kind.yaml" "$kind"
  with_execution "$kind.yaml" "backend: $kind" "poll_interval: 0.2" "marker_grace: 1" \
    "max_in_flight: 2" "cpus_per_task: 2" "memory: 2gb" "partition: workq"
  FAKE_PBS_KIND=$kind "$TRAILS" run --log-level info "$kind.yaml" --iterations 2 > "$kind.out" 2>&1 ||
    fail "$kind run: $(cat "$kind.out")"
  export_run "$kind" "$kind"
  cmp s.cvs.csv "$kind.cvs.csv" || fail "$kind: CV export differs from serial"
  cmp s.lineage.csv "$kind.lineage.csv" || fail "$kind: lineage export differs from serial"
  # Every element runs one walker (checked below: 8 walkers in 8 array tasks); at each
  # submission, unfinished earlier walkers + the new array's <= max_in_flight (2).
  awk '{ if (before[$1] - $3 + $2 > 2) { print "submission " NR " (" $2 " elements) with " before[$1] - $3 " earlier walker(s) of " $1 " unfinished"; bad = 1 }
         before[$1] += $2 } END { exit bad }' jobs/events > throttle.txt ||
    fail "$kind: throttle broken: $(cat throttle.txt)"
  [ "$(sort -u jobs/elements)" = 2 ] || fail "$kind: arrays of 2 elements expected: $(cat jobs/elements)"
  [ "$(cat jobs/count)" -eq 8 ] || fail "$kind: 4 arrays per iteration expected, got $(cat jobs/count)"
  grep -q "$kind: iteration 1: 8 walkers in 8 array task(s), 0 reused, 1 attempt(s), 4 submission(s)" "$kind.out" ||
    fail "$kind: summary: $(cat "$kind.out")"
  pass "$kind: byte-identical to serial, throttled to 2 elements in flight by the driver"
done
# The scripts as the fake server received them (the last run: Torque).
script=jobs/script_1.sh
for line in "#PBS -N trails-md" "#PBS -V" "#PBS -t 0-1" "#PBS -l nodes=1:ppn=2" "#PBS -l mem=2gb" \
  "#PBS -l walltime=01:00:00" "#PBS -q workq" 'PBS_ARRAYID'; do
  grep -qF -- "$line" "$script" || fail "torque script lacks '$line': $(cat "$script")"
done
pass "the #PBS script of Torque carries -t, nodes/ppn, mem, walltime and the queue"

# A stop (docs/execution.md, "Stopping"): SIGTERM to the driver while an array of iteration 1
# runs, once a walker of it has its success marker. The driver takes the finished walkers' results
# (kept in partial/), deletes the array it has in flight with `qdel ID` (the id qsub printed:
# PBS Pro's and Torque's qdel take an array's id for the whole array) and exits 143; --resume
# submits the rest and exports byte-identical to serial. A real server's qdel is not run here.
rm -rf jobs/* qdel.calls
SYNTHETIC_COST_MS=500 write_config stop.yaml stop
with_execution stop.yaml "backend: pbs" "poll_interval: 0.2" "marker_grace: 1" "max_in_flight: 2"
FAKE_PBS_KIND=pbs "$TRAILS" run --log-level info stop.yaml --iterations 2 > stop.out 2> stop.err &
driver=$!
for _ in $(seq 1 600); do
  [ "$(find stop/jobs/iter_1 -name 'result_*.ok' 2> /dev/null | wc -l)" -ge 1 ] && break
  kill -0 $driver 2> /dev/null || fail "stop: the run ended early: $(cat stop.err)"
  sleep 0.1
done
kill -TERM $driver
set +e
wait $driver
rc=$?
set -e
[ $rc -eq 143 ] || fail "stop: SIGTERM: exit $rc: $(cat stop.err)"
kept=$(sed -nE 's/.*iteration 1 was stopped: its ([0-9]+) finished walker\(s\) are kept.*/\1/p' stop.err)
[ -n "$kept" ] && [ "$kept" -ge 1 ] || fail "stop: nothing kept: $(cat stop.err)"
[ "$(find stop/partial/iter_000001 -type f | wc -l)" -eq "$kept" ] || fail "stop: partial/: $(find stop/partial)"
# The array in flight (the last one submitted) is deleted; an array whose elements had all
# finished may be named too, never anything but an array id.
grep -qxF "$(cat jobs/count)[].pbs01" qdel.calls && ! grep -qvE '^[0-9]+\[\]\.pbs01$' qdel.calls ||
  fail "stop: qdel of the array in flight ($(cat jobs/count)[].pbs01) expected, got: $(cat qdel.calls)"
sleep 1  # the element that was running when qdel came ends
FAKE_PBS_KIND=pbs "$TRAILS" run --log-level info stop.yaml --iterations 2 --resume > resume.out 2>&1 ||
  fail "stop: --resume: $(cat resume.out)"
export_run stop stop
cmp s.cvs.csv stop.cvs.csv || fail "stop: CV export differs from serial after --resume"
cmp s.lineage.csv stop.lineage.csv || fail "stop: lineage export differs from serial after --resume"
pass "pbs: SIGTERM keeps $kept finished walker(s), qdel's the array in flight, exit 143; --resume identical"
