#!/usr/bin/env bash
# The everyday commands: init (refuses to overwrite without --force), check (writes nothing),
# run, --iterations as a total target, --resume refusing result-changing edits, status, plot.
source "$(dirname "$0")/lib/common.bash"

"$TRAILS" init -o mine.yaml > /dev/null
cmp mine.yaml "$ROOT/examples/template.yaml" || fail "init output differs from examples/template.yaml"
set +e; "$TRAILS" init -o mine.yaml > /dev/null 2>&1; rc=$?; set -e
[ $rc -eq 2 ] || fail "init overwrote without --force (exit $rc)"
echo "# edited" >> mine.yaml
"$TRAILS" init -o mine.yaml --force > /dev/null
cmp mine.yaml "$ROOT/examples/template.yaml" || fail "init --force did not rewrite"
pass "init"

write_config c.yaml run
snap=$(snapshot .)
"$TRAILS" check c.yaml | matches "Preflight checks passed" || fail "check output"
[ "$(snapshot .)" = "$snap" ] || fail "check wrote something"
pass "check writes nothing"

"$TRAILS" run c.yaml --iterations 3 > run1.out
[ "$(committed run)" -eq 3 ] || fail "3 iterations expected"
"$TRAILS" run c.yaml --iterations 5 --resume > run2.out
[ "$(committed run)" -eq 5 ] || fail "--iterations is a total target: 5 expected"
"$TRAILS" run c.yaml --iterations 5 --resume > run3.out
grep -q "Completed 0 iteration" run3.out || fail "a satisfied target should run nothing"
pass "--iterations total target and --resume"

WALKERS=6 write_config changed.yaml run "recent_density_window: 2"
set +e; "$TRAILS" run changed.yaml --iterations 6 --resume > /dev/null 2> err.txt; rc=$?; set -e
[ $rc -eq 2 ] || fail "resume with changed config: exit $rc"
grep -q "spawning.walker" err.txt && grep -q "spawning.recent_density_window" err.txt ||
  fail "changed keys not listed: $(cat err.txt)"
SYNTHETIC_COST_MS=1 MAX_WORKERS=1 write_config harmless.yaml run
"$TRAILS" run harmless.yaml --iterations 6 --resume > /dev/null || fail "max_workers/synthetic cost must not block resume"
pass "--resume refuses result-changing edits and lists them"

"$TRAILS" status run | matches "6 committed" || fail "status text"
"$TRAILS" status run --json > status.json
/usr/bin/python3 - <<'PY' || fail "status --json fields"
import json
s = json.load(open("status.json"))
assert s["iterations_committed"] == 6 and s["running"] is False
assert s["walkers"]["last_iteration"] == 8 and s["frames"]["cumulative"] == 6 * 8 * 20
assert 0 < s["occupancy"]["occupied_bins"] <= s["occupancy"]["total_bins"] == 900
assert s["resolution"]["n_bins"] == [30, 30] and s["convergence"]["converged"] is False
assert s["time"]["runner_s"] > 0 and "eta_s" in s
PY
pass "status"

"$TRAILS" plot run -o pics > /dev/null
for f in coverage occupancy fes; do
  [ "$(head -c 8 pics/$f.png | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || fail "$f.png is not a PNG"
  [ "$(stat -c %s pics/$f.png)" -gt 10000 ] || fail "$f.png is suspiciously small"
done
pass "plot"

export_run run e
head -1 e.cvs.csv | matches -x "iteration,walker,frame,cv_0,cv_1" || fail "cvs header"
head -1 e.lineage.csv | matches -x "key,parent" || fail "lineage header"
sed -n 2p e.lineage.csv | matches -x "0:0:0," || fail "root frame has no parent"
sed -n 3p e.lineage.csv | matches -x "0:0:1,0:0:0" || fail "frame parent"
# Every iteration>0 walker's frame 0 has a parent frame that exists in the export.
/usr/bin/python3 - <<'PY' || fail "lineage parents point at existing frames"
import csv
rows = list(csv.DictReader(open("e.lineage.csv")))
keys = {r["key"] for r in rows}
for r in rows:
    it, w, f = map(int, r["key"].split(":"))
    if it > 0 and f == 0:
        p = r["parent"]
        assert p in keys and int(p.split(":")[0]) < it, r
PY
pass "export"

# --iteration/--walker select the rows of --cvs and --lineage: exactly the matching rows of the
# full export, in the same order; --cv-names changes only the header (the built-in engine's
# coordinates are named x0, x1).
"$TRAILS" export run --cvs sel.csv --lineage sel.lineage.csv --iteration 3 --walker 5 > /dev/null
{ head -1 e.cvs.csv; grep '^3,5,' e.cvs.csv; } > want.csv
cmp sel.csv want.csv || fail "--cvs --iteration 3 --walker 5 rows"
[ "$(wc -l < sel.csv)" -eq 21 ] || fail "walker 5 of iteration 3 should have 20 frames"
{ echo "key,parent"; grep '^3:5:' e.lineage.csv; } | cmp - sel.lineage.csv || fail "--lineage selection"
"$TRAILS" export run --cvs it4.csv --iteration 4 > /dev/null
{ head -1 e.cvs.csv; grep '^4,' e.cvs.csv; } | cmp - it4.csv || fail "--cvs --iteration 4 rows"
"$TRAILS" export run --cvs w0.csv --walker 0 > /dev/null
{ head -1 e.cvs.csv; grep -E '^[0-9]+,0,' e.cvs.csv; } | cmp - w0.csv || fail "--cvs --walker 0 rows"
[ "$(wc -l < w0.csv)" -eq $((6 * 20 + 1)) ] || fail "walker 0: 6 iterations x 20 frames"
"$TRAILS" export run --cvs named.csv --cv-names > /dev/null
head -1 named.csv | matches -x "iteration,walker,frame,x0,x1" || fail "--cv-names header: $(head -1 named.csv)"
cmp <(tail -n +2 named.csv) <(tail -n +2 e.cvs.csv) || fail "--cv-names changed the rows"
EXPECT_STREAMS=err.txt expect_exit 2 "unknown iteration" "--iteration 6: not a committed iteration of run (committed: 0..5)" \
  "$TRAILS" export run --cvs bad.csv --iteration 6
EXPECT_STREAMS=err.txt expect_exit 2 "unknown walker" "--walker 8: no such walker in iteration 2 of run (walkers 0..7)" \
  "$TRAILS" export run --cvs bad.csv --lineage bad2.csv --iteration 2 --walker 8
EXPECT_STREAMS=err.txt expect_exit 2 "negative walker" "--walker -1: no such walker in the committed iterations of run (walkers 0..7)" \
  "$TRAILS" export run --cvs bad.csv --walker -1
EXPECT_STREAMS=err.txt expect_exit 2 "--cv-names without --cvs" "--cv-names" \
  "$TRAILS" export run --lineage bad.csv --cv-names
[ ! -e bad.csv ] && [ ! -e bad2.csv ] || fail "a refused export wrote a file"
pass "export --cvs/--lineage with --iteration, --walker and --cv-names"

# Progress: a terminal gets one line rewritten in place (\r + erase), a pipe gets plain lines.
write_config tty.yaml tty
script -qec "$TRAILS run tty.yaml --iterations 3" /dev/null < /dev/null > tty.out
grep -q $'\r\e\[Kiteration 2 (3/3)' tty.out || fail "no in-place progress line on a terminal"
grep -q "ETA" tty.out || fail "progress line lacks the ETA"
write_config pipe.yaml pipe
"$TRAILS" run pipe.yaml --iterations 3 | cat > pipe.out
[ "$(grep -c '^iteration [0-9]* ([0-9]*/3)  walkers 8/8' pipe.out)" -eq 3 ] || fail "non-terminal output should have one line per iteration"
grep -q $'\e' pipe.out && fail "escape codes in non-terminal output"
pass "progress output on a terminal and on a pipe"

# status is readable while a campaign writes, and reports it as running.
SYNTHETIC_COST_MS=40 write_config live.yaml live
"$TRAILS" run live.yaml --iterations 12 > live.out &
pid=$!
seen=""
for _ in $(seq 1 200); do
  if [ -f live/ledger.sqlite ] && "$TRAILS" status live --json > live.json 2> live.err; then
    if /usr/bin/python3 -c 'import json,sys; s=json.load(open("live.json")); sys.exit(0 if s["running"] and s["iterations_committed"] >= 1 else 1)'; then
      seen=yes
      break
    fi
  fi
  sleep 0.05
done
wait $pid || fail "live run failed"
[ -n "$seen" ] || fail "status never saw the running campaign ($(cat live.err 2>/dev/null))"
"$TRAILS" status live --json | matches '"running": false' || fail "status after the run should say not running"
export_run live l
pass "status while the campaign writes"
