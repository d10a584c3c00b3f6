# Shared helpers for the shell-level tests (sourced; not a test itself).
# Each test is called as: bash TEST.sh /path/to/trails /path/to/source-root
set -euo pipefail
TRAILS=$(readlink -f "$1")
ROOT=$(readlink -f "$2")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/trails-test-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }
# PRODUCER | matches [GREP OPTION...] PATTERN: whether a line of the input matches, reading all
# of it. `grep -q` stops at the first match; a producer still writing then dies of SIGPIPE and,
# under pipefail, fails the pipeline though the line was there (html_report.sh failed so once).
matches() { grep "$@" > /dev/null; }

# expect_exit CODE DESCRIPTION SUBSTRING COMMAND...: COMMAND exits CODE and SUBSTRING is in its
# output (the files named by $EXPECT_STREAMS, default both stdout and stderr).
expect_exit() {
  local code=$1 what=$2 needle=$3
  shift 3
  set +e
  "$@" > out.txt 2> err.txt
  local rc=$?
  set -e
  local streams=${EXPECT_STREAMS:-out.txt err.txt}
  # shellcheck disable=SC2086  # the stream list is split on purpose
  [ $rc -eq "$code" ] || fail "$what: exit $rc, expected $code ($(cat $streams))"
  # shellcheck disable=SC2086
  grep -qF -- "$needle" $streams || fail "$what: output lacks '$needle': $(cat $streams)"
}

# write_config FILE OUTDIR [extra "key: value" lines appended to the spawning block]
# A small built-in Müller–Brown campaign that runs in well under a second per iteration.
write_config() {
  local file=$1 outdir=$2
  shift 2
  cat > "$file" <<YAML
outdir: $outdir
random_seed: 7
iterations: 12
n_bins: [30, 30]
min_values: [-1.5, -0.5]
max_values: [1.2, 2.0]
space_mode: fixed
system:
  start: [-0.558, 1.442]
engine:
  md_engine: builtin
  potential: muller_brown
  integrator: overdamped
  kT: 15.0
  dt: 0.0001
  synthetic_cost_ms: ${SYNTHETIC_COST_MS:-0}
spawning:
  walker: ${WALKERS:-8}
  step: 200
  stride: 10
  max_workers: ${MAX_WORKERS:-2}
  spawn_scheme: density
  spawn_type: hard
YAML
  local line
  for line in "$@"; do echo "  $line" >> "$file"; done
}

# bad_start_config FILE OUTDIR FRACTION [DT] [SEED]: 4 Müller–Brown walkers, 3 iterations;
# walker 1 starts where the exponentials overflow, so it fails in iteration 0 and the run
# goes on only when min_success_fraction (FRACTION) tolerates one failure in four.
bad_start_config() {
  cat > "$1" <<YAML
outdir: $2
${5:+random_seed: $5}
iterations: 3
n_bins: [30, 30]
min_values: [-1.5, -0.5]
max_values: [1.2, 2.0]
min_success_fraction: $3
system:
  start: [[-0.558, 1.442], [-40.0, 40.0], [-0.558, 1.442], [-0.558, 1.442]]
engine:
  md_engine: builtin
  potential: muller_brown
  kT: 15.0
  dt: ${4:-0.0001}
spawning:
  walker: 4
  step: 100
  stride: 10
YAML
}

# with_execution FILE LINE...: appends an execution: block with the given "key: value" lines.
with_execution() {
  local file=$1
  shift
  echo "execution:" >> "$file"
  local line
  for line in "$@"; do echo "  $line" >> "$file"; done
}

# expect_log_row RUN_DIR ITERATION OK FAILED: output.log's row of that iteration counts OK
# walkers done and FAILED failed.
expect_log_row() {
  awk -F'\t' -v it="$2" -v ok="$3" -v bad="$4" \
    '!/^#/ && $1 == it { if ($5 != ok || $6 != bad) exit 1 }' "$1/output.log" ||
    fail "iteration $2 should log $3 ok / $4 failed: $(cat "$1/output.log")"
}

# export_run RUN_DIR PREFIX -> PREFIX.cvs.csv PREFIX.lineage.csv
export_run() {
  "$TRAILS" export "$1" --cvs "$2.cvs.csv" --lineage "$2.lineage.csv"
}

# Lists every file under a directory with size and mtime, for "nothing changed" checks.
snapshot() { find "$1" -printf '%P %s %T@\n' 2>/dev/null | sort; }

# start_together N PREFIX COMMAND...: N copies of COMMAND started at once (each waits for a
# shared go file), their output in PREFIX.I.out and PREFIX.I.err; returns when all have ended,
# each exit status in PREFIX.I.rc (I = 1..N).
start_together() {
  local n=$1 prefix=$2 i rc
  shift 2
  local pids=()
  rm -f "$prefix.go"
  for ((i = 1; i <= n; i++)); do
    (until [ -e "$prefix.go" ]; do sleep 0.01; done
     exec "$@" > "$prefix.$i.out" 2> "$prefix.$i.err") &
    pids+=($!)
  done
  touch "$prefix.go"
  for ((i = 1; i <= n; i++)); do
    set +e
    wait "${pids[$((i - 1))]}"
    rc=$?
    set -e
    echo $rc > "$prefix.$i.rc"
  done
}

# one_winner N PREFIX WHAT NEEDLE...: of start_together's N runs exactly one exited 0, and every
# other exited 2 with one of the NEEDLEs in its stderr; WHAT names them in failures.
one_winner() {
  local n=$1 prefix=$2 what=$3 i rc wins=0 needle found
  shift 3
  for ((i = 1; i <= n; i++)); do
    rc=$(cat "$prefix.$i.rc")
    if [ "$rc" -eq 0 ]; then
      wins=$((wins + 1))
      continue
    fi
    [ "$rc" -eq 2 ] || fail "$what $i: exit $rc: $(cat "$prefix.$i.err")"
    found=""
    for needle in "$@"; do grep -qF -- "$needle" "$prefix.$i.err" && found=yes; done
    [ -n "$found" ] || fail "$what $i: $(cat "$prefix.$i.err")"
  done
  [ $wins -eq 1 ] || fail "$what: $wins of $n concurrent starts succeeded"
}

committed() { "$TRAILS" status "$1" --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["iterations_committed"])'; }

# start_live_campaign OUTDIR ITERATIONS: a built-in campaign slowed to 100 ms per walker, started
# in the background (its pid in $live_pid, its output in OUTDIR.out); returns once it has
# committed its first iteration, so readers can be tested on a run that is still being written.
start_live_campaign() {
  SYNTHETIC_COST_MS=100 write_config "$1.yaml" "$1"
  "$TRAILS" run "$1.yaml" --iterations "$2" > "$1.out" 2>&1 &
  live_pid=$!
  until [ -f "$1/ledger.sqlite" ] && [ "$(committed "$1" 2> /dev/null || echo 0)" -ge 1 ]; do
    kill -0 $live_pid 2> /dev/null || fail "live run ended early: $(cat "$1.out")"
    sleep 0.2
  done
}

# double_well_config FILE OUTDIR [STEP]: the 1-D built-in double well (basins at ±1, kT 0.5)
# with 8 walkers; callers append their own blocks (msm: …).
double_well_config() {
  cat > "$1" <<YAML
outdir: $2
random_seed: 7
n_bins: [40]
min_values: [-2.0]
max_values: [2.0]
system:
  start: [-1.0]
engine:
  md_engine: builtin
  potential: double_well
  kT: 0.5
  dt: 0.001
  synthetic_cost_ms: ${SYNTHETIC_COST_MS:-0}
spawning:
  walker: 8
  step: ${3:-2000}
  stride: 10
  max_workers: 2
YAML
}

# msm_models RUN_DIR -> one line per in-loop MSM build: iteration and model JSON (ledger).
msm_models() {
  /usr/bin/python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/ledger.sqlite")
for it, model in db.execute("SELECT iteration, model FROM msm_builds ORDER BY iteration"):
    print(it, model)
PY
}

# crash_then_resume CONFIG POINT ITERATIONS: SIGKILL at TRAILS_CRASH_AT=POINT, then --resume.
crash_then_resume() {
  local rc
  set +e
  TRAILS_CRASH_AT=$2 "$TRAILS" run "$1" --iterations "$3" > "$1.crash.out" 2>&1
  rc=$?
  set -e
  [ $rc -eq 137 ] || fail "$1 at $2: expected SIGKILL (137), got $rc: $(cat "$1.crash.out")"
  "$TRAILS" run "$1" --iterations "$3" --resume > /dev/null || fail "$1: resume after $2 failed"
}

# crash_resume_matches DIR POINT EXPECTED REF: run DIR.yaml (outdir DIR) to a SIGKILL at
# TRAILS_CRASH_AT=POINT, check that EXPECTED iterations are committed, --resume, and compare the
# exports with REF.cvs.csv / REF.lineage.csv byte for byte. Sets $got to the committed count.
crash_resume_matches() {
  local dir=$1 point=$2 expect=$3 ref=$4 rc
  set +e
  TRAILS_CRASH_AT=$point "$TRAILS" run "$dir.yaml" > "$dir.out" 2>&1
  rc=$?
  set -e
  [ $rc -eq 137 ] || fail "$point: expected death by SIGKILL (137), got $rc: $(cat "$dir.out")"
  got=$(committed "$dir")
  [ "$got" -eq "$expect" ] || fail "$point: $got iterations committed, expected $expect"
  "$TRAILS" run "$dir.yaml" --resume > /dev/null || fail "$point: resume failed"
  export_run "$dir" "$dir"
  cmp "$ref.cvs.csv" "$dir.cvs.csv" || fail "$point: CV export differs after resume"
  cmp "$ref.lineage.csv" "$dir.lineage.csv" || fail "$point: lineage differs after resume"
}

# alad_config FILE OUTDIR MAX_WORKERS: a tiny OpenMM alanine-dipeptide campaign (Reference
# platform, vacuum, φ/ψ CVs, 3 iterations of 4 walkers × 10 frames).
alad_config() {
  cat > "$1" <<YAML
outdir: $2
random_seed: 11
iterations: 3
cvs:
  - {name: phi, kind: phi, resid: 2}
  - {name: psi, kind: psi, resid: 2}
n_bins: [30, 30]
min_values: [-3.141592653589793, -3.141592653589793]
max_values: [3.141592653589793, 3.141592653589793]
system:
  conf_file: $ROOT/examples/alanine-dipeptide/alanine-dipeptide.pdb
  forcefield: [amber14-all.xml]
engine:
  md_engine: openmm
  platform_name: Reference
  dt: 0.002
spawning:
  walker: 4
  step: 200
  stride: 20
  max_workers: $3
  spawn_scheme: density
  spawn_type: hard
YAML
}

# three_well_learned_config FILE OUTDIR MAX_WORKERS MODE ITERATIONS [lines...]: a built-in
# three-well campaign in a 1-D learned space (retrain_freq 3, lag 3 frames, 6 walkers of 30
# frames). The lines are appended after the closing adaptive_model block, so indented ones extend
# it and unindented ones are further top-level keys.
three_well_learned_config() {
  cat > "$1" <<YAML
outdir: $2
random_seed: 11
iterations: $5
n_bins: [30]
space_mode: $4
retrain_freq: 3
max_adaptive_memory_frames: 400
system:
  start: [-1.0, 0.0]
engine:
  md_engine: builtin
  potential: three_well
  integrator: overdamped
  kT: 1.0
  dt: 0.001
spawning:
  walker: 6
  step: 300
  stride: 10
  max_workers: $3
  spawn_scheme: density
  spawn_type: hard
adaptive_model:
  lagtime: 3
YAML
  local line
  for line in "${@:6}"; do echo "$line" >> "$1"; done
}
