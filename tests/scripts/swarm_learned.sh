#!/usr/bin/env bash
# A swarm whose CV is a campaign's stored learned model (`projection: {model: RUN_DIR}`,
# docs/swarm.md, "A learned model as the CV"): a tiny Deep-TICA campaign on the built-in
# Müller–Brown potential trains the model; a 2-path swarm on the same system runs with that
# model's CV; its stored cycle CVs equal `trails project` of the same stored frames bit for bit;
# SIGKILL then --resume gives the uninterrupted swarm; a model of another system, a fixed-CV
# run, an iteration the run does not hold, both `cvs:` and a model, unknown keys, and a model
# that changed under a resumed swarm exit 2 naming the key.
source "$(dirname "$0")/lib/common.bash"
source "$ROOT/tests/scripts/lib/swarm.bash"

cat > dt.yaml <<'YAML'
outdir: dt
random_seed: 11
iterations: 3
n_bins: [30]
space_mode: deep-tica
retrain_freq: 2
system:
  start: [-0.558, 1.442]
engine:
  md_engine: builtin
  potential: muller_brown
  integrator: overdamped
  kT: 15.0
  dt: 0.0001
spawning:
  walker: 6
  step: 300
  stride: 10
  max_workers: 1
  spawn_scheme: density
  spawn_type: hard
adaptive_model:
  lagtime: 3
  epochs: 4
  batch_size: 64
  deep_tica_hidden_dims: [16]
YAML
"$TRAILS" run dt.yaml > dt.out 2>&1 || fail "deep-tica campaign failed: $(cat dt.out)"

# learned_swarm FILE WORKDIR [projection lines...]: the Müller–Brown swarm example in escape mode
# (8 cycles, 2 paths on 2 devices), its CV the campaign's model.
learned_swarm() {
  local file=$1 workdir=$2 line
  shift 2
  sed -e "s#^workdir: .*#workdir: $workdir#" -e 's/^  mode: target/  mode: escape/' \
    -e '/target_projection/d' -e 's/^  max_cycle: .*/  max_cycle: 8/' -e 's/^  max_trial: .*/  max_trial: 8/' \
    -e 's/^  seed: 1/  seed: 1\n  paths: 2\n  devices: [0, 1]/' -e '/^convergence:/,/^$/d' \
    "$ROOT/examples/swarm-muller-brown/input.yaml" > "$file"
  printf 'projection:\n' >> "$file"
  [ $# -gt 0 ] || set -- "model: dt"
  for line in "$@"; do printf '  %s\n' "$line" >> "$file"; done
}

learned_swarm sw.yaml sw
"$TRAILS" swarm sw.yaml > sw.out 2>&1 || fail "swarm with a learned CV failed: $(cat sw.out)"
"$TRAILS" export sw --cvs sw.named.csv --cv-names > /dev/null
[ "$(head -1 sw.named.csv)" = "iteration,walker,frame,deep_tica_0" ] ||
  fail "the swarm's CV is not named by the model: $(head -1 sw.named.csv)"
head -1 sw/path_0/reactive_path.csv | matches "deep_tica_0" ||
  fail "reactive_path.csv lacks the model's CV: $(head -1 sw/path_0/reactive_path.csv)"

# The stored frames of every committed cycle, projected by `trails project` through the same
# model, give the swarm's stored CVs bit for bit.
/usr/bin/python3 - <<'PY' || fail "the swarm's stored frames"
import glob, h5py, numpy as np
rows = []
for shard in sorted(glob.glob("sw/shards/iter_*.h5")):
    with h5py.File(shard, "r") as f:
        x = f["particles/walkers/position/value"][:]
    rows.append(x.reshape(len(x), -1))
x = np.concatenate(rows)
assert x.shape[1] == 2 and len(x) > 12, x.shape
np.savetxt("sw.coords.csv", x, delimiter=",", header="x,y", comments="", fmt="%.17g")
PY
"$TRAILS" project dt sw.coords.csv --out sw.projected.csv > /dev/null || fail "trails project"
/usr/bin/python3 - <<'PY' || fail "the swarm's CVs against trails project"
import csv
stored = [r["deep_tica_0"] for r in csv.DictReader(open("sw.named.csv"))]
projected = [r["deep_tica_0"] for r in csv.DictReader(open("sw.projected.csv"))]
assert len(stored) == len(projected) > 12, (len(stored), len(projected))
assert [float(a) for a in stored] == [float(b) for b in projected], (stored[:3], projected[:3])
assert len(set(stored)) > 8, "a constant CV"
PY
pass "a swarm's CV from a stored Deep-TICA model: $(wc -l < sw.projected.csv) frames equal trails project's"

# SIGKILL right after a commit, then --resume: the uninterrupted swarm's outputs.
learned_swarm crash.yaml crash
set +e
TRAILS_CRASH_AT=after-commit:6 "$TRAILS" swarm crash.yaml > crash.out 2>&1
rc=$?
set -e
[ $rc -eq 137 ] || fail "expected SIGKILL (137), got $rc: $(cat crash.out)"
"$TRAILS" swarm crash.yaml --resume > resume.out 2>&1 || fail "resume failed: $(cat resume.out)"
for k in 0 1; do
  diff <(swarm_fingerprint sw $k) <(swarm_fingerprint crash $k) > /dev/null ||
    fail "chain $k after kill -9 and --resume differs"
done
export_run sw sw && export_run crash crash
cmp -s sw.cvs.csv crash.cvs.csv && cmp -s sw.lineage.csv crash.lineage.csv ||
  fail "export after kill -9 and --resume differs"
pass "SIGKILL then --resume gives the uninterrupted learned-CV swarm"

# The model the swarm started with is part of its configuration: a model that changed under it
# (the campaign continued, so "the last iteration" is another model) is refused on resume.
"$TRAILS" run dt.yaml --iterations 5 --resume > /dev/null 2>&1 || fail "campaign --resume to 5 iterations"
expect_exit 2 "resume after the model changed" "pathgennie.projection.stored_model" \
  "$TRAILS" swarm crash.yaml --resume
grep -q "projection.iteration: 2 continues with it" err.txt out.txt || fail "no pinning hint: $(cat err.txt)"
learned_swarm pinned.yaml crash "model: dt" "iteration: 2"
"$TRAILS" swarm pinned.yaml --resume > pinned.out 2>&1 || fail "pinned resume: $(cat pinned.out)"
pass "a changed model is refused on --resume; projection.iteration pins the one the swarm began with"

# Bad input: exit 2 naming the key, nothing written.
learned_swarm bad1.yaml bad1 "model: dt" "iteration: 9"
expect_exit 2 "an iteration the run lacks" "projection.iteration 9: " "$TRAILS" swarm bad1.yaml
learned_swarm bad2.yaml bad2 "model: dt" "lag: 3"
expect_exit 2 "an unknown key" "projection.lag" "$TRAILS" swarm bad2.yaml
learned_swarm bad3.yaml bad3 "model: no-such-run"
expect_exit 2 "a missing run" "projection.model" "$TRAILS" swarm bad3.yaml
write_config fixed.yaml fixed
sed -i 's/^iterations: 12/iterations: 1/' fixed.yaml
"$TRAILS" run fixed.yaml > /dev/null 2>&1 || fail "fixed campaign"
learned_swarm bad4.yaml bad4 "model: fixed"
expect_exit 2 "a fixed-CV run" "is not a learned-space campaign" "$TRAILS" swarm bad4.yaml
learned_swarm bad5.yaml bad5
sed -i 's/^  potential: muller_brown/  potential: double_well/; s/^  start: .*/  start: [-1.0]/' bad5.yaml
expect_exit 2 "a model of another system" "projection.model: the model's run has 1 particles (2 coordinates), the swarm's system 1 (1)" \
  "$TRAILS" swarm bad5.yaml
learned_swarm bad6.yaml bad6
printf 'cvs:\n  - {name: d, kind: distance, atoms: [0, 1]}\n' >> bad6.yaml
expect_exit 2 "a model and cvs:" "the CVs are given twice" "$TRAILS" swarm bad6.yaml
"$TRAILS" check bad5.yaml > /dev/null 2>&1 && fail "trails check accepted a model of another system"
for k in 1 2 3 4 5 6; do [ ! -e "bad$k" ] || fail "a refused swarm wrote bad$k"; done
pass "bad learned-model projections exit 2 naming the key; nothing written"
