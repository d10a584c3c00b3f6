#!/usr/bin/env bash
# A stop signal to `trails run` whose walkers are SLURM array tasks (docs/execution.md,
# "Stopping"), on the private cluster of scripts/slurm-local: the scenario of
# stop_keeps_walkers.sh (tests/scripts/lib/stop_scenario.bash: walker 3 of iteration 1 hangs with
# a setsid grandchild while walkers 0-2 have finished) on `backend: slurm`. SIGTERM to the driver
# once the finished walkers' success markers are in: exit 143 within seconds, the three kept in
# partial/, the hung walker's array task cancelled (scancel: CANCELLED in scontrol), no job of
# the run left in the queue and no process of the hung walker left; the printed --resume
# submits only walker 3 and is bitwise the uninterrupted run. About 15 s.
source "$(dirname "$0")/lib/common.bash"
source "$ROOT/tests/scripts/lib/slurm.bash"
source "$ROOT/tests/scripts/lib/stop_scenario.bash"
trap 'cancel_ours trails-stop; rm -rf "$WORK"' EXIT

stop_reference

# markers_and_hung NAME: three success markers of iteration 1 are in and walker 3 hangs (its
# line in grandchildren holds two pids).
markers_and_hung() {
  [ "$(find "$1/jobs/iter_1" -name 'result_*.ok' 2> /dev/null | wc -l)" -ge 3 ] &&
    grep -q ' ' grandchildren 2> /dev/null
}

# cancelled_and_gone NAME: the array element of walker 3 (one walker per task: element 3) was
# cancelled, and within 30 s no job of the run is left in the queue (KillWait is 5 s).
cancelled_and_gone() {
  local log job state _
  log=$(find "$1/jobs/iter_1" -name '*_3.out' | head -1)
  [ -n "$log" ] || fail "$1: no log of the array element of walker 3: $(find "$1/jobs")"
  job=$(basename "$log" .out)
  state=$(scontrol -o show job "$job" | grep -o 'JobState=[A-Z]*')
  [ "$state" = JobState=CANCELLED ] || fail "$1: array task $job of the hung walker: $state"
  for _ in $(seq 1 300); do
    [ -z "$(squeue -h --name trails-stop)" ] && break
    sleep 0.1
  done
  [ -z "$(squeue -h --name trails-stop)" ] || fail "$1: jobs left in the queue: $(squeue --name trails-stop)"
}

config_for slurm.yaml slurm
with_slurm slurm.yaml trails-stop
STOP_READY=markers_and_hung AFTER_STOP=cancelled_and_gone stop_and_resume slurm itself
