#!/usr/bin/env bash
# A stop signal reaches walkers outside the driver's process (docs/execution.md, "Stopping"):
# the scenario of stop_keeps_walkers.sh (tests/scripts/lib/stop_scenario.bash: a hung walker with
# a setsid grandchild while three walkers of its iteration have finished) with the walkers in
# `trails worker` processes and in MPI ranks under mpirun. SIGTERM to the driver (rank 0 under
# mpirun) ends the hung walker and its whole process tree within seconds, exit 143, the finished
# walkers are kept and the printed --resume (under the same launcher) is bitwise the
# uninterrupted run. Then `trails swarm` on worker processes and MPI ranks with a hung trial:
# exit 143, the --resume command printed, nothing of the trial left, and the resumed swarm is
# bitwise the uninterrupted one. SIGTERM to mpirun itself (Open MPI signals every rank) stops the
# campaign the same way.
source "$(dirname "$0")/lib/common.bash"
source "$ROOT/tests/scripts/lib/stop_scenario.bash"
source "$ROOT/tests/scripts/lib/swarm.bash"

# As root Open MPI wants --allow-run-as-root; the test machine may have fewer cores than ranks.
MPIRUN=(mpirun --allow-run-as-root --oversubscribe)

# rank0 MPIRUN_PID: the pid of rank 0 of that job (its environment says which rank it is).
rank0() {
  local d p
  for d in /proc/[0-9]*; do
    p=${d#/proc/}
    [ "$(cut -d' ' -f4 "$d/stat" 2> /dev/null)" = "$1" ] || continue
    tr '\0' '\n' < "$d/environ" 2> /dev/null | matches -x 'OMPI_COMM_WORLD_RANK=0' && echo "$p"
  done
  return 0
}

stop_reference

config_for workers.yaml workers "persistent_workers: true"
stop_and_resume workers itself

config_for mpi.yaml mpi "backend: mpi"
stop_and_resume mpi rank0 "${MPIRUN[@]}" -n 5

# SIGTERM to mpirun itself, as a batch system's stop reaches the job step: Open MPI 4.1 waits
# odls_base_sigkill_timeout seconds, sends SIGTERM to every rank, waits as long again and sends
# SIGKILL. Every rank acts on that SIGTERM (the worker ranks end their walkers and answer, rank 0
# keeps the finished ones); with the 10 s that docs/execution.md advises the stop always fits
# before the SIGKILL. mpirun itself exits 1 (its own status), about 20 s after the signal.
config_for launcher.yaml launcher "backend: mpi"
STOP_RC=1 stop_and_resume launcher itself "${MPIRUN[@]}" --mca odls_base_sigkill_timeout 10 -n 5

# --- trails swarm: trial 1 of cycle 2 hangs (with a setsid grandchild) until $WORK/fast exists.
rm -f fast grandchildren
swarm_config swarm.yaml sref "max_cycle: 4"
sed -i 's/max_trial: 16/max_trial: 4/; /^  max_cycle: 400/d' swarm.yaml
integrate_yaml swarm.yaml
cat > trial.sh <<'SH'
#!/bin/sh
if [ "$TRAILS_ITERATION" = 2 ] && [ "$TRAILS_WALKER" = 1 ] && [ ! -e "$WORK/fast" ]; then
  setsid sleep 600 < /dev/null > /dev/null 2>&1 &
  echo $! $$ >> "$WORK/grandchildren"
  touch "$WORK/hung"
  sleep 600
fi
exec "$TRAILS_EXECUTABLE" integrate "$WORK/integrate.yaml" "$TRAILS_TASK_FILE"
SH
chmod +x trial.sh
swarm_for() {  # FILE WORKDIR [execution lines...]
  sed -e "s#^workdir: .*#workdir: $2#" -e '/potential:/d; /integrator:/d; /kT:/d; /friction:/d; /mass:/d' \
    -e "s#md_engine: builtin#md_engine: command\n  command: [$WORK/trial.sh]#" swarm.yaml > "$1"
  [ $# -le 2 ] || with_execution "$1" "${@:3}"
}
touch fast
swarm_for sref.yaml sref
"$TRAILS" swarm sref.yaml > sref.out 2>&1 || fail "the uninterrupted swarm: $(cat sref.out)"
rm -f fast

# swarm_stop NAME DRIVER_PID_COMMAND LAUNCH...
swarm_stop() {
  local name=$1 driver_of=$2 _
  shift 2
  rm -f hung grandchildren
  "$@" "$TRAILS" swarm "$name.yaml" > "$name.out" 2> "$name.err" &
  local pid=$!
  for _ in $(seq 1 600); do
    [ -e hung ] && break
    kill -0 $pid 2> /dev/null || fail "$name: the swarm ended early: $(cat "$name.err")"
    sleep 0.1
  done
  [ -e hung ] || fail "$name: trial 1 of cycle 2 did not start"
  sigterm_ends "$name" "$pid" "$driver_of"
  ! alive || fail "$name: the hung trial's process tree outlived the stop"
  local resume
  resume=$(sed -n 's/^resume with: //p' "$name.err")
  [ "$resume" = "$TRAILS swarm $name.yaml --resume" ] || fail "$name: resume command: '$resume'"
  touch fast
  # shellcheck disable=SC2086  # the printed command is split into its words on purpose
  "$@" $resume > "$name.resumed.out" 2>&1 || fail "$name: --resume: $(cat "$name.resumed.out")"
  rm -f fast
  diff <(swarm_fingerprint sref) <(swarm_fingerprint "$name") > /dev/null ||
    fail "$name: the resumed swarm differs from the uninterrupted one"
  pass "$name: SIGTERM with a hung trial: exit 143, nothing left, --resume is bitwise the uninterrupted swarm"
}
swarm_for sworkers.yaml sworkers "persistent_workers: true"
sed -i 's#^  seed: \(.*\)#  seed: \1\n  devices: [0, 1]#' sworkers.yaml  # 2 slots
swarm_stop sworkers itself
swarm_for smpi.yaml smpi "backend: mpi"
swarm_stop smpi rank0 "${MPIRUN[@]}" -n 3
