#!/usr/bin/env bash
# execution.backend: pbs | torque (docs/execution.md, "Scheduler arrays"). Debian has no PBS or
# Torque server, so fake qsub/qstat (first on PATH) replay the recorded outputs of
# tests/data/scheduler/ and run each array element locally with PBS_ARRAY_INDEX (PBS) or
# PBS_ARRAYID (Torque) set, as the server would. Checked: the campaign exports byte-identical to
# serial on both; the array limit is read from `qstat -Bf` (max_array_size = 3 / Torque's
# max_job_array_size = 3) and max_in_flight: 2 is the driver's throttle (PBS has no %N): every
# array holds at most 2 elements and none is submitted while another runs; the rendered #PBS
# scripts carry -J / -t and the resources.
source "$(dirname "$0")/lib/common.bash"

DATA=$ROOT/tests/data/scheduler
mkdir -p fakebin jobs
# qsub SCRIPT: prints the recorded job id with its number replaced by a counter, runs the
# elements in the background (one after another), keeps the script, and refuses a submit while
# an earlier array still runs (what the driver-side throttle must prevent).
cat > fakebin/qsub <<SH
#!/bin/bash
set -euo pipefail
kind=\$FAKE_PBS_KIND
# An element ends a moment after its marker is written: a short grace before calling it a breach
# (walkers take 500 ms here, so an array submitted beside a running one is still caught).
sleep 0.3
for f in "$WORK"/jobs/*.running; do
  [ -e "\$f" ] && { echo "qsub: an array was submitted while \$(basename "\$f") ran" >> "$WORK/violations"; }
done
n=\$(( \$(cat "$WORK/jobs/count" 2>/dev/null || echo 0) + 1 ))
echo \$n > "$WORK/jobs/count"
cp "\$1" "$WORK/jobs/script_\$n.sh"
range=\$(sed -nE 's/^#PBS -[Jt] 0-([0-9]+)\$/\1/p' "\$1")
echo "\$((range + 1))" >> "$WORK/jobs/elements"
var=PBS_ARRAY_INDEX; [ "\$kind" = torque ] && var=PBS_ARRAYID
touch "$WORK/jobs/\$n.running"
( for i in \$(seq 0 "\$range"); do env "\$var=\$i" bash "\$1" > "$WORK/jobs/\$n.\$i.log" 2>&1 || true; done
  rm "$WORK/jobs/\$n.running" ) > /dev/null 2>&1 &
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
printf '#!/bin/bash\nexit 0\n' > fakebin/qdel
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
  [ ! -e violations ] || fail "$kind: throttle broken: $(cat violations)"
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
