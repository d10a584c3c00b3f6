#!/usr/bin/env bash
# A stop signal during an iteration (docs/reliability.md, "Signals, child processes and
# concurrent runs"): the run stops at once, ending the walkers still running with their whole
# process trees (a hung program, a setsid grandchild), keeps the walkers that had finished so
# that --resume does not run them again, and the resumed run is bitwise the uninterrupted one.
# The command engine runs the built-in engine (`trails integrate`) and logs every walker it runs;
# walker 3 of iteration 1 hangs until $WORK/fast exists.
source "$(dirname "$0")/lib/common.bash"
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
  echo $! >> "$WORK/grandchildren"
  sleep 600  # hung, and no engine.command_timeout
fi
"$TRAILS_EXECUTABLE" integrate "$TRAILS_BUILTIN_CONFIG" "$TRAILS_TASK_FILE" || exit 1
echo "$TRAILS_ITERATION $TRAILS_WALKER" >> "$WORK/runs.$RUN"
SH
chmod +x seg.sh
config_for() {  # FILE OUTDIR
  sed -e "s|^outdir: .*|outdir: $2|" -e '/potential:/d' -e '/integrator:/d' -e '/kT:/d' \
    -e '/synthetic_cost_ms:/d' \
    -e "s|md_engine: builtin|md_engine: command\n  command: [$WORK/seg.sh]|" builtin.yaml > "$1"
}
# alive: a recorded grandchild still runs (a killed one may stay a zombie until init reaps it).
alive() {
  [ -s grandchildren ] || return 1
  local p
  while read -r p; do
    [ -r "/proc/$p/stat" ] && [ "$(cut -d' ' -f3 "/proc/$p/stat" 2> /dev/null)" != Z ] && return 0
  done < grandchildren
  return 1
}

touch fast
config_for ref.yaml ref
RUN=ref "$TRAILS" run ref.yaml > ref.out 2>&1 || fail "the uninterrupted run: $(cat ref.out)"
export_run ref ref
! alive || fail "a setsid grandchild of a walker outlived it"
pass "a walker's setsid grandchild ends with the walker"
rm -f fast grandchildren

config_for stop.yaml stop
RUN=stop "$TRAILS" run stop.yaml > stop.out 2> stop.err &
pid=$!
for _ in $(seq 1 600); do
  [ "$(cat runs.stop 2> /dev/null | grep -c '^1 ')" -ge 3 ] && break
  kill -0 $pid 2> /dev/null || fail "the run ended early: $(cat stop.err)"
  sleep 0.1
done
[ "$(grep -c '^1 ' runs.stop)" -eq 3 ] || fail "walkers 0-2 of iteration 1 did not finish"
kill -TERM $pid
for _ in $(seq 1 300); do kill -0 $pid 2> /dev/null || break; sleep 0.1; done
kill -0 $pid 2> /dev/null && fail "SIGTERM did not stop the run while a walker hung"
set +e
wait $pid
rc=$?
set -e
[ $rc -eq 143 ] || fail "SIGTERM: exit $rc: $(cat stop.err)"
grep -qF "iteration 1 was stopped: its 3 finished walker(s) are kept" stop.err ||
  fail "the stop does not say what it kept: $(cat stop.err)"
[ "$(ls stop/partial/iter_000001 | wc -l)" -eq 3 ] || fail "partial/: $(find stop/partial)"
! alive || fail "the hung walker's process tree outlived the stop"
resume=$(sed -n 's/^resume with: //p' stop.err)
[ "$resume" = "$TRAILS run stop.yaml --resume" ] || fail "resume command: '$resume'"
pass "SIGTERM with a hung walker: exit 143 at once, 3 finished walkers kept, no process left"

touch fast
RUN=resumed eval "$resume" > resumed.out 2>&1 || fail "--resume: $(cat resumed.out)"
[ "$(grep -c '^1 ' runs.resumed)" -eq 1 ] && grep -q '^1 3$' runs.resumed ||
  fail "--resume ran these walkers of iteration 1 again: $(grep '^1 ' runs.resumed)"
[ ! -e stop/partial ] || fail "partial/ outlived the commit of its iteration"
export_run stop stop
cmp ref.cvs.csv stop.cvs.csv || fail "the resumed run's CVs differ from the uninterrupted run's"
cmp ref.lineage.csv stop.lineage.csv || fail "the resumed run's lineage differs"
pass "--resume runs only the unfinished walker; the result is bitwise the uninterrupted run's"
