#!/usr/bin/env bash
# No walker outlives a killed launcher or driver (docs/execution.md, "No walker outlives its
# driver"): command-engine walkers whose program records its pid and a setsid grandchild's and
# then sleeps for ten minutes.
# 1. kill -9 of mpirun: Open MPI ends every rank by itself, and each rank's guard process ends
#    what the rank started: the programs, the grandchildren and the guards are all gone;
# 2. kill -9 of the driver of persistent workers (`trails worker`): each worker finds its stdin
#    closed and ends its walker: the programs, the grandchildren and the workers are gone;
# 3. kill -9 of `trails run` on threads and of `trails swarm` on a device pool (the walkers are
#    the driver's own children): the driver's guard process ends the programs and the
#    grandchildren, and then itself.
# The waits poll (up to 60 s each); nothing depends on how fast a machine is.
source "$(dirname "$0")/lib/common.bash"
source "$ROOT/tests/scripts/lib/swarm.bash"

# As root Open MPI wants --allow-run-as-root; the test machine may have fewer cores than ranks.
MPIRUN=(mpirun --allow-run-as-root --oversubscribe)
export WORK

cat > seg.sh <<'SH'
#!/bin/sh
echo $$ >> "$WORK/walkers.$RUN"
setsid sleep 600 < /dev/null > /dev/null 2>&1 &
echo $! >> "$WORK/walkers.$RUN"
exec sleep 600
SH
chmod +x seg.sh

# command_config FILE OUTDIR EXECUTION_LINE: 2 walkers of seg.sh.
command_config() {
  WALKERS=2 write_config "$1" "$2"
  sed -i -e '/potential:/d' -e '/integrator:/d' -e '/kT:/d' -e '/synthetic_cost_ms:/d' \
    -e "s|md_engine: builtin|md_engine: command\n  command: [$WORK/seg.sh]|" "$1"
  with_execution "$1" "$3"
}

# alive PID...: one of them still runs (a killed process may stay a zombie until it is reaped).
alive() {
  local p
  for p in "$@"; do
    [ -r "/proc/$p/stat" ] && [ "$(cut -d' ' -f3 "/proc/$p/stat" 2> /dev/null)" != Z ] && return 0
  done
  return 1
}

# kill_and_expect_gone NAME LAUNCH_PID OTHER_PIDS: once both walkers have started, kill -9 of
# LAUNCH_PID; then every walker process and OTHER_PIDS end within 60 s.
kill_and_expect_gone() {
  local name=$1 pid=$2 others=$3 _
  kill -9 "$pid"
  wait "$pid" 2> /dev/null || true
  # shellcheck disable=SC2046,SC2086  # pid lists split on purpose
  for _ in $(seq 600); do alive $(cat "walkers.$name") $others || break; sleep 0.1; done
  # shellcheck disable=SC2046,SC2086
  if alive $(cat "walkers.$name") $others; then
    local left
    # shellcheck disable=SC2046,SC2086
    left=$(ps -o pid,stat,args -p "$(echo $(cat "walkers.$name") $others | tr ' ' ',')" || true)
    # shellcheck disable=SC2046,SC2086
    kill -9 $(cat "walkers.$name") $others 2> /dev/null || true
    fail "$name: processes outlived the kill -9 by 60 s: $left"
  fi
}

# started NAME: both walkers' programs have recorded themselves and their grandchildren.
started() { [ -f "walkers.$1" ] && [ "$(wc -l < "walkers.$1")" -ge 4 ]; }
wait_started() {  # NAME PID
  local _
  for _ in $(seq 600); do
    started "$1" && return 0
    kill -0 "$2" 2> /dev/null || fail "$1: the run ended early: $(cat "$1.out")"
    sleep 0.1
  done
  fail "$1: the walkers did not start within 60 s: $(cat "$1.out")"
}

# guards_of PID: PID's guard processes, its children that are copies of trails (forked, not
# started: the walkers' programs are seg.sh) in a process group of their own.
guards_of() {
  local child exe
  exe=$(readlink -f "$TRAILS")
  for child in $(pgrep -P "$1" || true); do
    [ "$(readlink "/proc/$child/exe" 2> /dev/null)" = "$exe" ] || continue
    [ "$(ps -o pgid= -p "$child" | tr -d ' ')" = "$child" ] && echo "$child"
  done
  return 0
}

command_config mpi.yaml mpi "backend: mpi"
RUN=mpi "${MPIRUN[@]}" -n 3 "$TRAILS" run mpi.yaml > mpi.out 2>&1 &
pid=$!
wait_started mpi $pid
ranks=$(pgrep -P $pid || true)
[ "$(echo "$ranks" | wc -w)" -eq 3 ] || fail "expected 3 rank processes under mpirun, found: $ranks"
guards=$(for r in $ranks; do guards_of "$r"; done)
[ "$(echo "$guards" | wc -w)" -eq 3 ] || fail "expected a guard process per rank, found: $guards"
kill_and_expect_gone mpi $pid "$ranks $guards"
pass "kill -9 of mpirun: the ranks, their walkers' programs, setsid grandchildren and guards end"

command_config workers.yaml workers "persistent_workers: true"
RUN=workers "$TRAILS" run workers.yaml > workers.out 2>&1 &
pid=$!
wait_started workers $pid
workers=$(pgrep -P $pid -f -- ' worker' || true)
[ "$(echo "$workers" | wc -w)" -eq 2 ] || fail "expected 2 worker processes, found: $workers"
kill_and_expect_gone workers $pid "$workers"
pass "kill -9 of the driver: its workers, their walkers' programs and setsid grandchildren end"

# kill_guarded NAME PID: kill_and_expect_gone for a driver whose walkers are its own children;
# its guard process ends too, and there was exactly one.
kill_guarded() {
  local guard
  guard=$(guards_of "$2")
  kill_and_expect_gone "$1" "$2" "$guard"
  [ "$(echo "$guard" | wc -w)" -eq 1 ] || fail "$1: expected one guard process, found: '$guard'"
}

command_config threads.yaml threads "backend: local"
RUN=threads "$TRAILS" run threads.yaml > threads.out 2>&1 &
pid=$!
wait_started threads $pid
kill_guarded threads $pid
pass "kill -9 of trails run on threads: its walkers' programs, setsid grandchildren and guard end"

# A swarm of 2 trials per cycle on 2 devices (a device pool of 2 slots), seg.sh as the program.
swarm_config swarm.yaml swarm "devices: [0, 1]"
sed -i -e 's/max_trial: 16/max_trial: 2/' -e '/potential:/d; /integrator:/d; /kT:/d' \
  -e '/friction:/d; /mass:/d' \
  -e "s#md_engine: builtin#md_engine: command\n  command: [$WORK/seg.sh]#" swarm.yaml
RUN=swarm "$TRAILS" swarm swarm.yaml > swarm.out 2>&1 &
pid=$!
wait_started swarm $pid
kill_guarded swarm $pid
pass "kill -9 of trails swarm on a device pool: its trials' programs, setsid grandchildren and guard end"
