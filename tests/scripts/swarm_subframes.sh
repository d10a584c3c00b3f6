#!/usr/bin/env bash
# `trails swarm` subframes (docs/swarm.md, "Subframes"): the chosen τ1 + τ2 of every cycle are
# replayed from their stored seeds into one continuous path; at every stored anchor the replayed
# frame equals the original bit for bit, in swarm and legacy modes, and a replay asked for only
# on --resume gives the same file; bad subframe keys exit 2 and write nothing.
source "$(dirname "$0")/lib/common.bash"
source "$ROOT/tests/scripts/lib/swarm.bash"

# check_subframes RUN: every reactive-path anchor (save_freq 1) is a subframe with the same
# coordinates, written identically (17 significant digits: bitwise), and the frames are evenly
# spaced along the path.
check_subframes() {
  /usr/bin/python3 - "$1/path_0/reactive_path.csv" "$1/path_0/subframes.csv" "$1/path_0/metrics.csv" <<'PY'
import csv, sys
anchors = list(csv.DictReader(open(sys.argv[1])))
sub = {r["path_steps"]: r for r in csv.DictReader(open(sys.argv[2]))}
metrics = list(csv.DictReader(open(sys.argv[3])))
assert anchors, "no anchors"
for a in anchors:
    s = sub.get(a["path_steps"])
    assert s is not None, ("no subframe at anchor", a["cycle"], a["path_steps"])
    assert (s["x0"], s["x1"]) == (a["x0"], a["x1"]), ("anchor differs", a, s)
steps = sorted(int(k) for k in sub)
assert all(b - a == 10 for a, b in zip(steps, steps[1:])), "frames not every 10 steps"
assert steps[-1] == int(metrics[-1]["path_steps"]), (steps[-1], metrics[-1]["path_steps"])
PY
}

swarm_config sf.yaml sf "save_subframes: true" "subframe_stride: 10"
"$TRAILS" swarm sf.yaml > sf.out 2>&1 || fail "swarm with subframes failed: $(cat sf.out)"
grep -q "subframes: path 0: .* frame(s); all .* replayed anchors match bitwise" sf.out || fail "no bitwise match: $(cat sf.out)"
check_subframes sf || fail "subframes do not pass through the anchors"
pass "subframes pass through every anchor bitwise (swarm mode)"

# unbind keeps a probe's τ1 end without τ2 on some cycles: those replay τ1 only.
swarm_config ub.yaml ub "save_subframes: true" "subframe_stride: 10"
sed -i 's/^  mode: target/  mode: unbind/; /target_projection/d; s/distance_to_target: .*/metric_at_least: 1.9/' ub.yaml
"$TRAILS" swarm ub.yaml > ub.out 2>&1 || fail "unbind with subframes failed: $(cat ub.out)"
grep -q "all .* replayed anchors match bitwise" ub.out || fail "unbind: no bitwise match: $(cat ub.out)"
check_subframes ub || fail "unbind's subframes do not pass through the anchors"
cut -d, -f6 ub/path_0/metrics.csv | matches -x trial || fail "no τ1-only cycle in the unbind run"
pass "subframes pass through every anchor bitwise (unbind, with τ1-only cycles)"

# Asked for only on --resume of a finished run: the replay comes from the store alone.
swarm_config late.yaml late
"$TRAILS" swarm late.yaml > late.out 2>&1 || fail "plain run failed: $(cat late.out)"
[ ! -e late/path_0/subframes.csv ] || fail "subframes written without save_subframes"
sed -i 's/^  seed: \(.*\)/  seed: \1\n  save_subframes: true\n  subframe_stride: 10/' late.yaml
"$TRAILS" swarm late.yaml --resume > late2.out 2>&1 || fail "resume with subframes failed: $(cat late2.out)"
cmp -s sf/path_0/subframes.csv late/path_0/subframes.csv || fail "a late replay differs from the run's own"
pass "a replay asked for on --resume gives the same subframes"

swarm_config bad1.yaml bad1 "save_subframes: true" "subframe_stride: 3"
expect_exit 2 "stride not dividing tau1" "pathgennie.subframe_stride: must divide tau1_steps (20) and tau2_steps (40)" "$TRAILS" swarm bad1.yaml
swarm_config bad2.yaml bad2 "subframe_stride: 10"
expect_exit 2 "stride without subframes" "applies only with save_subframes: true" "$TRAILS" swarm bad2.yaml
[ ! -e bad1 ] && [ ! -e bad2 ] || fail "a refused config created its workdir"
pass "bad subframe keys exit 2 and write nothing"
