#!/usr/bin/env bash
# `trails swarm` on the built-in Müller–Brown potential (docs/swarm.md): the example reaches the
# product basin; a swarm is bitwise the same on 1 or 8 devices × 2 workers, one chain of a
# multi-path run is the same chain run alone, SIGKILL then --resume gives the uninterrupted run's
# outputs; status and plot read the run; bad input exits 2 and writes nothing.
source "$(dirname "$0")/lib/common.bash"
source "$ROOT/tests/scripts/lib/swarm.bash"

# The outputs that must match bit for bit: metrics without the wall-time column, the path, the CVs.
# same_export RUN_A RUN_B: `trails export` CVs and lineage are byte-identical.
same_export() {
  export_run "$1" "$1" && export_run "$2" "$2"
  cmp -s "$1.cvs.csv" "$2.cvs.csv" && cmp -s "$1.lineage.csv" "$2.lineage.csv"
}
fingerprint() {
  local dir=$1 k=${2:-0}
  cut -d, -f1-10 "$dir/path_$k/metrics.csv"
  cat "$dir/path_$k/reactive_path.csv"
}

# The example converges within its cycle cap.
swarm_config mb.yaml mb
"$TRAILS" swarm mb.yaml > mb.out 2>&1 || fail "example swarm failed: $(cat mb.out)"
grep -q "^path 0: .* converged" mb.out || fail "the example did not reach the product basin: $(cat mb.out)"
tail -n1 mb/path_0/metrics.csv | matches ',extended,1,1,\|,trial,1,1,' || fail "last cycle not converged: $(tail -n2 mb/path_0/metrics.csv)"
/usr/bin/python3 - mb/path_0/reactive_path.csv <<'PY' || fail "the path does not end in the product basin"
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
x, y = float(rows[-1]["x0"]), float(rows[-1]["x1"])
assert math.hypot(x - 0.623, y - 0.028) <= 0.1, (x, y)
steps = [int(r["path_steps"]) for r in rows]
assert steps == sorted(steps) and steps[0] > 0, steps
PY
pass "the Müller–Brown example reaches the product basin"

"$TRAILS" status mb > status.out || fail "status of a swarm run failed"
grep -q "path 0 .* converged" status.out || fail "status: $(cat status.out)"
"$TRAILS" plot mb -o pics > plot.out || fail "plot of a swarm run failed: $(cat plot.out)"
for p in progress.png path.png; do
  [ -s "pics/$p" ] || fail "plot wrote no $p"
  head -c 8 "pics/$p" | od -An -tx1 | matches "89 50 4e 47" || fail "$p is not a PNG"
done
for c in analyze reweight; do
  expect_exit 2 "$c of a swarm run" "is a swarm run" "$TRAILS" $c mb
done
pass "status and plot read a swarm run; analyze and reweight refuse it"

# trails report of a swarm: settings, each path's outcome, both pictures, every cycle's row.
"$TRAILS" report mb -o mbreport > report.out 2>&1 || fail "report of a swarm run: $(cat report.out)"
grep -qx "wrote mbreport/index.html (2 pictures)" report.out || fail "report output: $(cat report.out)"
/usr/bin/python3 - mbreport/index.html mb/path_0/metrics.csv pics <<'PY' || fail "the swarm report"
import base64, csv, html, os, re, sys
page = open(sys.argv[1], encoding="utf-8").read()
text = html.unescape(page)
assert "<title>Trails swarm report: mb</title>" in page, "title"
assert "<script" not in page
rows = list(csv.reader(open(sys.argv[2])))
header, cycles = rows[0], rows[1:]
# the outcome table: path 0 converged at its last cycle, with its cycle count
assert re.search(rf"<td>0</td><td>{len(cycles)}</td><td>converged at cycle {cycles[-1][0]}</td>", page), "outcome row"
# every cycle of metrics.csv, in order, in the cycle table
table = page.split('<section id="cycles">')[1]
shown = re.findall(r"<tr><td>(\d+)</td><td>([^<]*)</td>", table)
assert [c for c, _ in shown] == [r[0] for r in cycles], (len(shown), len(cycles))
assert [m for _, m in shown] == [r[1] for r in cycles]
# the pictures of trails plot, embedded byte for byte
prefix = "data:image/png;base64,"
embedded = sorted(base64.b64decode(s[len(prefix):]) for s in re.findall(r'<img src="([^"]*)"', page))
drawn = sorted(open(os.path.join(sys.argv[3], f), "rb").read() for f in ("progress.png", "path.png"))
assert embedded == drawn, "pictures"
assert "engine" in text and "builtin (potential muller_brown" in text, "engine row"
assert "Progress along each path" in text and "Paths over the potential" in text
print("ok")
PY
pass "report of a swarm run: settings, outcome, progress and path pictures, every cycle"

# Bitwise the same on 8 devices × 2 workers as on one slot.
swarm_config d8.yaml d8 "devices: [0, 1, 2, 3, 4, 5, 6, 7]" "workers_per_device: 2"
"$TRAILS" swarm d8.yaml > d8.out 2>&1 || fail "8-device swarm failed: $(cat d8.out)"
grep -q "16 slot(s)" d8.out || fail "no 16 slots: $(cat d8.out)"
diff <(fingerprint mb) <(fingerprint d8) > /dev/null || fail "8 devices x 2 workers changed the swarm"
same_export mb d8 || fail "8 devices x 2 workers changed the export"
pass "1 slot and 16 slots give the same swarm"

# Multi-path fill: chain 2 of a 3-path run with seed s is the one-path run with seed s + 2.
seed=$(sed -n 's/^  seed: //p' mb.yaml)
swarm_config k3.yaml k3 "paths: 3" "devices: [0, 1, 2, 3]"
"$TRAILS" swarm k3.yaml > k3.out 2>&1 || fail "3-path swarm failed: $(cat k3.out)"
swarm_config alone.yaml alone
sed -i "s/^  seed: .*/  seed: $((seed + 2))/" alone.yaml
"$TRAILS" swarm alone.yaml > alone.out 2>&1 || fail "lone chain failed: $(cat alone.out)"
diff <(fingerprint k3 2) <(fingerprint alone 0) > /dev/null || fail "chain 2 differs from the same chain run alone"
diff <(fingerprint k3 0) <(fingerprint mb 0) > /dev/null || fail "chain 0 differs from the one-path run"
[ "$(grep -c '^path [012]: ' k3.out)" -eq 3 ] || fail "not three paths: $(cat k3.out)"
pass "each chain of a multi-path run is the chain run alone"

# Legacy unbind mode: first-improvement probing gives the same path whatever the probe batch.
for b in 1 5 16; do
  swarm_config "unbind$b.yaml" "unbind$b" "probe_batch: $b"
  sed -i 's/^  mode: target/  mode: unbind/; /target_projection/d; s/distance_to_target: .*/metric_at_least: 1.9/' "unbind$b.yaml"
  "$TRAILS" swarm "unbind$b.yaml" > "unbind$b.out" 2>&1 || fail "unbind (batch $b) failed: $(cat "unbind$b.out")"
done
grep -q "unbind mode, .* first improvement, probes in batches of 5" unbind5.out || fail "banner: $(cat unbind5.out)"
grep -q "^path 0: .* converged" unbind1.out || fail "unbind did not escape: $(cat unbind1.out)"
for b in 5 16; do
  diff <(fingerprint unbind1) <(fingerprint "unbind$b") > /dev/null || fail "probe_batch $b changed the unbind path"
done
/usr/bin/python3 - unbind1/path_0/metrics.csv <<'PY' || fail "unbind's anchors lost ground against the ratchet"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert all(r["selection_entropy"] == "0" for r in rows), "first improvement is a certain choice"
assert rows and float(rows[-1]["anchor_metric"]) >= 1.9, rows[-1]
PY
pass "unbind's first-improvement path is the same for probe batches of 1, 5 and 16"

# SIGKILL right after a commit (other trials in flight), then --resume: the same outputs.
swarm_config crash.yaml crash "paths: 3" "devices: [0, 1, 2, 3]"
set +e
TRAILS_CRASH_AT=after-commit:10 "$TRAILS" swarm crash.yaml > crash.out 2>&1
rc=$?
set -e
[ $rc -eq 137 ] || fail "expected SIGKILL (137), got $rc: $(cat crash.out)"
[ "$("$TRAILS" status crash --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["iterations_committed"])')" -eq 11 ] || fail "not 11 cycles committed at the crash"
"$TRAILS" swarm crash.yaml --resume > resume.out 2>&1 || fail "resume failed: $(cat resume.out)"
for k in 0 1 2; do
  diff <(fingerprint k3 $k) <(fingerprint crash $k) > /dev/null || fail "chain $k after kill -9 and --resume differs"
done
same_export k3 crash || fail "export after kill -9 and --resume differs"
pass "SIGKILL then --resume gives the uninterrupted swarm"

# A raised max_cycle may continue a run; any other change is refused.
sed -i 's/^  sigma: .*/  sigma: 0.3/' crash.yaml
expect_exit 2 "changed sigma on resume" "pathgennie.sigma" "$TRAILS" swarm crash.yaml --resume
expect_exit 2 "fresh run into an existing run" "already holds a run" "$TRAILS" swarm mb.yaml
sed -i 's#^workdir: .*#workdir: nothing-here#' crash.yaml
expect_exit 2 "resume without a run" "holds no swarm run" "$TRAILS" swarm crash.yaml --resume
[ ! -e nothing-here ] || fail "a refused resume created its workdir"

# Bad input: every problem with file:line, exit 2, nothing written.
cat > bad.yaml <<'YAML'
workdir: bad-run
pathgennie:
  mode: target
  max_trials: 8
  tau1_steps: 2
  tau2_steps: 2
  max_cycle: 3
projection:
  module: mycv
engine:
  md_engine: builtin
  potential: muller_brown
YAML
expect_exit 2 "bad swarm config" "bad.yaml:4:3: pathgennie.max_trials: unknown key" "$TRAILS" swarm bad.yaml
grep -qF "pathgennie.target_projection: target and fold modes need the target point" err.txt || fail "no target_projection problem: $(cat err.txt)"
grep -qF "bad.yaml:8:1: projection.function: missing" err.txt || fail "no projection problem: $(cat err.txt)"
[ ! -e bad-run ] || fail "a refused config created its workdir"
mkdir full && touch full/keep
swarm_config full.yaml full
expect_exit 2 "non-empty workdir" "exists and is not empty" "$TRAILS" swarm full.yaml
[ "$(ls full)" = keep ] || fail "a refused run touched a non-empty workdir"
# Absurd sizes are refused naming the key, before anything is allocated (was std::bad_alloc).
swarm_config huge.yaml huge
sed -i 's/^  max_trial: 16$/  max_trial: 200000000/' huge.yaml
expect_exit 2 "max_trial 2e8" "pathgennie.max_trial: must be an integer in [1, 1e+05]" "$TRAILS" swarm huge.yaml
swarm_config huge.yaml huge "paths: 100000000"
expect_exit 2 "paths 1e8" "pathgennie.paths: must be an integer in [1, 10000]" "$TRAILS" swarm huge.yaml
swarm_config huge.yaml huge "paths: 10000"
sed -i 's/^  max_trial: 16$/  max_trial: 1000/' huge.yaml
expect_exit 2 "paths x max_trial" "10000 paths × 1000 trials" "$TRAILS" check huge.yaml
[ ! -e huge ] || fail "a refused size created the workdir"
pass "bad input exits 2 and writes nothing"

# `trails check` reads a swarm configuration (the `pathgennie:` block) with the swarm's loader and
# makes run_swarm's checks before anything is written; `trails run` points at `trails swarm`.
swarm_config ok.yaml check-run
"$TRAILS" check ok.yaml > check.out 2>&1 || fail "trails check of a swarm config: $(cat check.out)"
grep -qF "Preflight checks passed. Output directory: " check.out || fail "check: $(cat check.out)"
[ ! -e check-run ] || fail "trails check created the swarm's workdir"
expect_exit 2 "check of a bad swarm config" "bad.yaml:4:3: pathgennie.max_trials: unknown key" "$TRAILS" check bad.yaml
sed 's/^  target_projection: .*/  target_projection: [0.6, 0.0, 1.0]/' ok.yaml > wrongdim.yaml
expect_exit 2 "check: a target with 3 values for 2 CVs" "pathgennie.target_projection" \
  "$TRAILS" check wrongdim.yaml
[ ! -e check-run ] || fail "a refused check created the swarm's workdir"
expect_exit 2 "check --resume of a swarm config" "trails swarm ok.yaml --resume" "$TRAILS" check ok.yaml --resume
expect_exit 2 "trails run on a swarm config" "run it with \`trails swarm ok.yaml\`" "$TRAILS" run ok.yaml
[ ! -e check-run ] || fail "a refused run created the swarm's workdir"
pass "trails check runs the swarm's checks and writes nothing; trails run points at trails swarm"
