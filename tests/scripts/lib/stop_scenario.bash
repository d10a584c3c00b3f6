# The stop scenario of the stop tests (sourced after common.bash; not a test itself;
# docs/reliability.md, "Signals, child processes and concurrent runs"): a command-engine campaign
# of 4 walkers x 3 iterations whose segment program runs the built-in engine (`trails
# integrate`) and logs each walker it runs to $WORK/runs.$RUN. Walker 0 of iteration 0 leaves a
# setsid grandchild behind; walker 3 of iteration 1 hangs, with a setsid grandchild and no
# engine.command_timeout, until $WORK/fast exists. Every pid that must end is in grandchildren.
export TRAILS_EXECUTABLE=$TRAILS
WALKERS=4 MAX_WORKERS=4 write_config builtin.yaml builtin
sed -i 's/^iterations: 12$/iterations: 3/' builtin.yaml
export TRAILS_BUILTIN_CONFIG=$WORK/builtin.yaml WORK

cat > seg.sh <<'SH'
#!/bin/sh
if [ "$TRAILS_ITERATION" = 0 ] && [ "$TRAILS_WALKER" = 0 ]; then
  setsid sleep 600 < /dev/null > /dev/null 2>&1 &   # a grandchild that leaves the group
  echo $! >> "$WORK/grandchildren"
fi
if [ "$TRAILS_ITERATION" = 1 ] && [ "$TRAILS_WALKER" = 3 ] && [ ! -e "$WORK/fast" ]; then
  setsid sleep 600 < /dev/null > /dev/null 2>&1 &
  echo $! $$ >> "$WORK/grandchildren"
  sleep 600  # hung, and no engine.command_timeout
fi
"$TRAILS_EXECUTABLE" integrate "$TRAILS_BUILTIN_CONFIG" "$TRAILS_TASK_FILE" || exit 1
echo "$TRAILS_ITERATION $TRAILS_WALKER" >> "$WORK/runs.$RUN"
SH
chmod +x seg.sh

# config_for FILE OUTDIR [execution lines...]
config_for() {
  sed -e "s|^outdir: .*|outdir: $2|" -e '/potential:/d' -e '/integrator:/d' -e '/kT:/d' \
    -e '/synthetic_cost_ms:/d' \
    -e "s|md_engine: builtin|md_engine: command\n  command: [$WORK/seg.sh]|" builtin.yaml > "$1"
  [ $# -le 2 ] || with_execution "$1" "${@:3}"
}

# alive: a recorded process still runs (a killed one may stay a zombie until init reaps it).
alive() {
  [ -s grandchildren ] || return 1
  local p
  # shellcheck disable=SC2013  # one or two pids a line
  for p in $(cat grandchildren); do
    [ -r "/proc/$p/stat" ] && [ "$(cut -d' ' -f3 "/proc/$p/stat" 2> /dev/null)" != Z ] && return 0
  done
  return 1
}

# The uninterrupted reference run (in process) and its export, ref.cvs.csv / ref.lineage.csv.
stop_reference() {
  touch fast
  config_for ref.yaml ref
  RUN=ref "$TRAILS" run ref.yaml > ref.out 2>&1 || fail "the uninterrupted run: $(cat ref.out)"
  export_run ref ref
  ! alive || fail "a setsid grandchild of a walker outlived it"
  rm -f fast grandchildren
}

# stop_and_resume NAME DRIVER_PID_COMMAND LAUNCH...: runs NAME.yaml (made by config_for) as
# `LAUNCH... $TRAILS run NAME.yaml`; once walkers 0-2 of iteration 1 have finished (or the test
# $STOP_READY NAME holds), sends SIGTERM to the driver (the pid DRIVER_PID_COMMAND prints, given
# the launch's pid) and checks: the run ends within 30 s with exit 143 and says what it kept
# ($AFTER_STOP NAME, when set, runs first), the 3 finished walkers are in NAME/partial/, no
# process of the hung walker is left, the resume command is printed; then the printed command,
# under LAUNCH..., runs only walker 3 of iteration 1 and the run equals ref.
stop_and_resume() {
  local name=$1 driver_of=$2
  shift 2
  rm -f fast grandchildren
  RUN=$name "$@" "$TRAILS" run "$name.yaml" > "$name.out" 2> "$name.err" &
  local pid=$! _
  for _ in $(seq 1 600); do
    "${STOP_READY:-finished_three}" "$name" && break
    kill -0 $pid 2> /dev/null || fail "$name: the run ended early: $(cat "$name.err")"
    sleep 0.1
  done
  [ "$(grep -c '^1 ' "runs.$name")" -eq 3 ] || fail "$name: walkers 0-2 of iteration 1 did not finish"
  sigterm_ends "$name" "$pid" "$driver_of"
  "${AFTER_STOP:-true}" "$name"
  grep -qF "iteration 1 was stopped: its 3 finished walker(s) are kept" "$name.err" ||
    fail "$name: the stop does not say what it kept: $(cat "$name.err")"
  [ "$(ls "$name/partial/iter_000001" | wc -l)" -eq 3 ] || fail "$name: partial/: $(find "$name/partial")"
  ! alive || fail "$name: the hung walker's process tree outlived the stop"
  local resume
  resume=$(sed -n 's/^resume with: //p' "$name.err")
  [ "$resume" = "$TRAILS run $name.yaml --resume" ] || fail "$name: resume command: '$resume'"
  pass "$name: SIGTERM with a hung walker: exit ${STOP_RC:-143} within 30 s, 3 finished walkers kept, no process left"

  touch fast
  # shellcheck disable=SC2086  # the printed command is split into its words on purpose
  RUN=$name.resumed "$@" $resume > "$name.resumed.out" 2>&1 ||
    fail "$name: --resume: $(cat "$name.resumed.out")"
  [ "$(grep -c '^1 ' "runs.$name.resumed")" -eq 1 ] && grep -q '^1 3$' "runs.$name.resumed" ||
    fail "$name: --resume ran these walkers of iteration 1 again: $(grep '^1 ' "runs.$name.resumed")"
  [ ! -e "$name/partial" ] || fail "$name: partial/ outlived the commit of its iteration"
  export_run "$name" "$name"
  cmp ref.cvs.csv "$name.cvs.csv" || fail "$name: the resumed run's CVs differ from the uninterrupted run's"
  cmp ref.lineage.csv "$name.lineage.csv" || fail "$name: the resumed run's lineage differs"
  pass "$name: --resume runs only the unfinished walker; the result is bitwise the uninterrupted run's"
}

# finished_three NAME: walkers 0-2 of iteration 1 have finished (stop_and_resume's default
# moment to stop; STOP_READY names another test).
finished_three() { [ "$(cat "runs.$1" 2> /dev/null | grep -c '^1 ')" -ge 3 ]; }

# sigterm_ends NAME PID DRIVER_PID_COMMAND: SIGTERM to the driver of the background launch PID
# (the pid DRIVER_PID_COMMAND prints for it) ends PID within 30 s with exit 143, or $STOP_RC
# ($NAME.err: its stderr).
sigterm_ends() {
  local name=$1 pid=$2 driver _
  driver=$($3 "$pid")
  [ -n "$driver" ] || fail "$name: no driver process found"
  kill -TERM "$driver"
  for _ in $(seq 1 300); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2> /dev/null && fail "$name: SIGTERM did not stop the run while a walker hung"
  set +e
  wait "$pid"
  local rc=$?
  set -e
  [ $rc -eq "${STOP_RC:-143}" ] || fail "$name: SIGTERM: exit $rc: $(cat "$name.err")"
}

# The pid itself (a driver started directly).
itself() { echo "$1"; }
