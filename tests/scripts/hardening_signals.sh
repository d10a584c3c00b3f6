#!/usr/bin/env bash
# Signals, child processes and concurrent runs (docs/reliability.md): SIGINT/SIGTERM/SIGHUP stop
# `trails run` at once, keeping the finished walkers of the iteration in flight, with a summary, the command to resume and
# exit 128 + signal; a second signal aborts at once; a stop during OpenMM preparation leaves no
# child process and no temporary directory; `| head -1` does not kill a campaign; of concurrent
# starts on one new outdir exactly one runs.
source "$(dirname "$0")/lib/common.bash"

# until_true SECONDS COMMAND...: polls COMMAND every 0.1 s; fails the test after SECONDS.
until_true() {
  local limit=$1 i
  shift
  for ((i = 0; i < limit * 10; i++)); do
    "$@" && return 0
    sleep 0.1
  done
  fail "timed out after $limit s waiting for: $*"
}
progress_lines_at_least() { [ "$(grep -c '^iteration ' "$1" 2>/dev/null)" -ge "$2" ]; }
gone() { ! kill -0 "$1" 2>/dev/null; }
# A script's background jobs start with SIGINT ignored (and trails keeps ignored signals
# ignored, as for nohup): run trails with the default dispositions, as from a terminal. Call it
# in the background only (it execs).
default_signals() {
  exec /usr/bin/python3 -c 'import os, signal, sys
for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP): signal.signal(s, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])' "$@"
}

write_config ref.yaml ref
"$TRAILS" run ref.yaml --iterations 20 > /dev/null
export_run ref ref

# 1. One stop signal: the run stops at once, says what it kept and how to go on.
for spec in INT:130 TERM:143 HUP:129; do
  sig=${spec%:*}
  want=${spec#*:}
  dir=stop-$sig
  SYNTHETIC_COST_MS=100 WALKERS=8 write_config "$dir.yaml" "$dir"
  default_signals "$TRAILS" run "$dir.yaml" --iterations 20 > "$dir.out" 2> "$dir.err" &
  pid=$!
  # 4 lines: iterations 0 and 1 started and committed (a stop ends the iteration in flight)
  until_true 120 progress_lines_at_least "$dir.out" 4
  kill -"$sig" $pid
  set +e
  wait $pid
  rc=$?
  set -e
  [ $rc -eq "$want" ] || fail "SIG$sig: exit $rc, expected $want: $(cat "$dir.err")"
  got=$(committed "$dir")
  [ "$got" -ge 2 ] && [ "$got" -lt 20 ] || fail "SIG$sig: $got iterations committed"
  grep -qF "interrupted by SIG$sig: $got iteration(s) committed in $WORK/$dir (the last: iteration $((got - 1)))" "$dir.err" ||
    fail "SIG$sig: no summary of what was committed: $(cat "$dir.err")"
  [ -z "$(find "$dir" -name '*.tmp*')" ] || fail "SIG$sig: temporary files left: $(find "$dir" -name '*.tmp*')"
  resume=$(sed -n 's/^resume with: //p' "$dir.err")
  [ "$resume" = "$TRAILS run $dir.yaml --iterations 20 --resume" ] ||
    fail "SIG$sig: resume command is '$resume'"
  eval "$resume" > /dev/null || fail "SIG$sig: the printed resume command failed"
  export_run "$dir" "$dir"
  cmp ref.cvs.csv "$dir.cvs.csv" || fail "SIG$sig: resumed run differs from the uninterrupted one"
  cmp ref.lineage.csv "$dir.lineage.csv" || fail "SIG$sig: lineage differs"
  pass "SIG$sig: exit $want after $got committed iterations, resume command identical result"
done

# An ignored SIGHUP (nohup) stays ignored: the run goes on to the end.
SYNTHETIC_COST_MS=100 write_config nohup.yaml nohup
nohup "$TRAILS" run nohup.yaml --iterations 6 > nohup.out 2> nohup.err &
pid=$!
until_true 120 progress_lines_at_least nohup.out 1
kill -HUP $pid
wait $pid || fail "nohup trails run: SIGHUP stopped it: $(cat nohup.err)"
[ "$(committed nohup)" -eq 6 ] || fail "nohup trails run: $(committed nohup) of 6 committed"
pass "nohup: SIGHUP ignored, all 6 iterations committed"

# 2. A second signal aborts at once (iterations of seconds: the graceful stop would wait for one);
# the store's crash safety keeps the run resumable.
SYNTHETIC_COST_MS=3000 WALKERS=2 write_config twice.yaml twice
default_signals "$TRAILS" run twice.yaml --iterations 20 > twice.out 2> twice.err &
pid=$!
until_true 120 progress_lines_at_least twice.out 1
kill -INT $pid
until_true 60 grep -q 'trails: stopping' twice.err
kill -INT $pid
set +e
wait $pid
rc=$?
set -e
[ $rc -eq 130 ] || fail "second SIGINT: exit $rc, expected 130: $(cat twice.err)"
grep -q 'aborted; continue with --resume' twice.err || fail "second SIGINT: $(cat twice.err)"
! grep -q '^resume with' twice.err || fail "second SIGINT waited for the graceful stop"
SYNTHETIC_COST_MS=0 WALKERS=2 write_config twice.yaml twice
"$TRAILS" run twice.yaml --iterations 3 --resume > /dev/null || fail "resume after two SIGINTs"
[ "$(committed twice)" -eq 3 ] || fail "resume after two SIGINTs: $(committed twice) committed"
pass "second SIGINT: aborted at once (130), resumable"

# 3. SIGTERM during OpenMM preparation: a slow stand-in for the interpreter (and a grandchild).
cp "$ROOT/tests/data/structures/alanine-dipeptide.pdb" alad.pdb
cat > slow-python <<SH
#!/usr/bin/env bash
echo \$\$ > "$WORK/prep.pid"
sleep 300 &
echo \$! > "$WORK/grandchild.pid"
wait
SH
chmod +x slow-python
{
  printf 'outdir: prep/run\nn_bins: [30, 30]\nmin_values: [-3.15, -3.15]\nmax_values: [3.15, 3.15]\n'
  printf 'system:\n  conf_file: alad.pdb\n  forcefield: [amber14-all.xml]\n'
  printf 'engine:\n  md_engine: openmm\n  platform_name: Reference\n  python: %s\n' "$WORK/slow-python"
  printf 'spawning:\n  walker: 2\n  step: 20\n  stride: 10\n'
} > prep.yaml
default_signals "$TRAILS" run prep.yaml --iterations 2 > prep.out 2> prep.err &
pid=$!
until_true 120 test -s grandchild.pid
kill -TERM $pid
set +e
wait $pid
rc=$?
set -e
[ $rc -eq 143 ] || fail "SIGTERM in preparation: exit $rc, expected 143: $(cat prep.err)"
until_true 30 gone "$(cat prep.pid)"
until_true 30 gone "$(cat grandchild.pid)"
[ ! -e prep ] || fail "SIGTERM in preparation left $(find prep)"
grep -qF 'interrupted by SIGTERM before iteration 0 was committed; nothing was written' prep.err ||
  fail "SIGTERM in preparation: $(cat prep.err)"
grep -qF "start it again with: $TRAILS run prep.yaml --iterations 2" prep.err ||
  fail "SIGTERM in preparation: no command to start again: $(cat prep.err)"
pass "SIGTERM in preparation: 143, child group ended, nothing left behind"

# 4. A closed stdout (| head -1) does not stop the campaign.
SYNTHETIC_COST_MS=50 write_config pipe.yaml pipe
set +e
"$TRAILS" run pipe.yaml --iterations 6 2> pipe.err | head -1 > pipe.head
rcs=("${PIPESTATUS[@]}")
set -e
[ "${rcs[0]}" -eq 0 ] || fail "trails run | head -1: exit ${rcs[0]}: $(cat pipe.err)"
[ "$(committed pipe)" -eq 6 ] || fail "trails run | head -1: $(committed pipe) of 6 committed"
grep -q '^Trails' pipe.head || fail "head -1 got: $(cat pipe.head)"
pass "trails run | head -1: exit 0, all 6 iterations committed"

# 5. Concurrent starts on one new outdir: exactly one runs, the others exit 2 and change nothing.
SYNTHETIC_COST_MS=100 write_config conc.yaml conc
for round in 1 2 3; do
  rm -rf conc
  start_together 8 conc "$TRAILS" run conc.yaml --iterations 15
  one_winner 8 conc "round $round, run" "another trails process is running in $WORK/conc;"
  [ "$(committed conc)" -eq 15 ] || fail "round $round: $(committed conc) committed"
  "$TRAILS" run conc.yaml --iterations 17 --resume > /dev/null || fail "round $round: resume"
  [ "$(committed conc)" -eq 17 ] || fail "round $round: resume reached $(committed conc)"
  pass "round $round: 8 concurrent starts, one ran, 7 exit 2, the run resumes"
done
