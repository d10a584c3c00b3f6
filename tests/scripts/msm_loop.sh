#!/usr/bin/env bash
# The in-loop MSM on the built-in double well: a known answer (two metastable basins: one slow
# timescale far above the rest, MSM convergence stops the campaign), the overlapped build gives
# the same bits as the non-overlapped one, and kill + --resume reproduces the uninterrupted run
# (exports and every MSM build's model compared byte for byte).
source "$(dirname "$0")/lib/common.bash"

dw_config() {  # FILE OUTDIR PATIENCE
  double_well_config "$1" "$2"
  cat >> "$1" <<YAML
msm:
  enabled: true
  min_frames: 500
  n_microstates: 20
  lagtime: 5
  lagtimes: [1, 2, 5, 10, 20]
  convergence_patience: $3
YAML
}

# --- known answer: double well, MSM convergence ---
dw_config dw.yaml dw 3
"$TRAILS" run dw.yaml --iterations 40 > dw.out 2>&1 || fail "double-well run failed: $(cat dw.out)"
/usr/bin/python3 - dw <<'PY' || fail "double-well MSM known answer"
import json, sqlite3, sys
run = sys.argv[1]
conv = json.load(open(run + "/convergence.json"))
assert conv["converged"], conv
assert conv["convergence_reason"].startswith("MSM convergence: criteria (all) satisfied for 3"), conv
assert conv["completed_iterations"] < 40, conv
db = sqlite3.connect(run + "/ledger.sqlite")
rows = [json.loads(m) for (m,) in db.execute("SELECT model FROM msm_builds ORDER BY iteration")]
assert rows, "no MSM build recorded"
last = rows[-1]
assert last["converged"] and last["lag_guard_ok"], last
t = last["timescales"]
assert all(x > 0 for x in t), t
# Two metastable basins: one slow process (barrier crossing) far slower than the next one.
assert t[0] > 5 * t[1], t
pi = last["stationary_distribution"]
assert abs(sum(pi) - 1) < 1e-9 and min(pi) > 0, pi
T = last["transition_matrix"]
for i, row in enumerate(T):
    assert abs(sum(row) - 1) < 1e-9
    for j, x in enumerate(row):
        assert abs(pi[i] * x - pi[j] * T[j][i]) < 1e-10  # detailed balance
assert set(last["its"]) == {"1", "2", "5", "10", "20"}, last["its"]
print("ok-known", t)
PY
"$TRAILS" status dw | grep -Eq "^msm +build at iteration [0-9]+ \([0-9]+ builds\): lag 5, [0-9]+/20 active states, timescales \[.*converged$" \
  || fail "status does not show the latest MSM: $("$TRAILS" status dw)"
"$TRAILS" status dw --json | /usr/bin/python3 -c 'import json,sys; s=json.load(sys.stdin); assert s["msm"]["converged"] and s["convergence"]["reason"].startswith("MSM"), s' \
  || fail "status --json lacks the MSM"
"$TRAILS" plot dw -o dwplots > plot.out || fail "plot failed: $(cat plot.out)"
for f in its timescales fes_msm; do
  [ -s dwplots/$f.png ] || fail "trails plot did not draw $f.png"
done
grep -q "msm_build_s" dw/output.log || fail "output.log lacks the msm_build_s column"
pass "double well: MSM convergence after $(committed dw) iterations, two-state spectrum"

# --- overlapped and serial MSM builds give the same bits ---
dw_config ser.yaml ser 3
TRAILS_MSM_OVERLAP=0 "$TRAILS" run ser.yaml --iterations 40 > /dev/null
export_run dw dw
export_run ser ser
cmp dw.cvs.csv ser.cvs.csv || fail "CV export differs between overlapped and serial MSM"
cmp dw.lineage.csv ser.lineage.csv || fail "lineage differs between overlapped and serial MSM"
msm_models dw > dw.msm
msm_models ser > ser.msm
cmp dw.msm ser.msm || fail "MSM builds differ between overlapped and serial order"
pass "overlapped MSM build bitwise equal to the serial order ($(wc -l < dw.msm) builds)"

# --- resume: stopped runs and crashes reproduce the uninterrupted run ---
dw_config ref.yaml ref 0
"$TRAILS" run ref.yaml --iterations 12 > /dev/null
export_run ref ref
msm_models ref > ref.msm
check_same() {
  export_run "$1" "$1"
  cmp ref.cvs.csv "$1.cvs.csv" || fail "$1: CV export differs from the uninterrupted run"
  cmp ref.lineage.csv "$1.lineage.csv" || fail "$1: lineage differs"
  msm_models "$1" > "$1.msm"
  cmp ref.msm "$1.msm" || fail "$1: MSM builds differ from the uninterrupted run"
}
dw_config stop.yaml stop 0
"$TRAILS" run stop.yaml --iterations 5 > /dev/null
"$TRAILS" run stop.yaml --iterations 12 --resume > /dev/null
check_same stop
pass "stop at 5 + resume to 12: identical exports and MSM builds"
for point in after-commit:4 ledger-commit:7 md:9; do
  dir=crash-${point/:/-}
  dw_config "$dir.yaml" "$dir" 0
  set +e
  TRAILS_CRASH_AT=$point "$TRAILS" run "$dir.yaml" --iterations 12 > "$dir.out" 2>&1
  rc=$?
  set -e
  [ $rc -eq 137 ] || fail "$point: expected SIGKILL (137), got $rc: $(cat "$dir.out")"
  "$TRAILS" run "$dir.yaml" --iterations 12 --resume > /dev/null || fail "$point: resume failed"
  check_same "$dir"
  pass "crash at $point + resume: identical exports and MSM builds"
done
# Overlap off on resume only: still the same bits.
dw_config mix.yaml mix 0
"$TRAILS" run mix.yaml --iterations 6 > /dev/null
TRAILS_MSM_OVERLAP=0 "$TRAILS" run mix.yaml --iterations 12 --resume > /dev/null
check_same mix
pass "overlapped first half, serial resumed half: identical"

# --- MSM-guided spawner: least-counts fallback before the first MSM, then guided; the same
# bits overlapped, serial, and stopped + resumed.
msm_spawn_config() {  # FILE OUTDIR
  write_config "$1" "$2" "voronoi_clusters: 30"
  sed -i 's/spawn_scheme: density/spawn_scheme: msm/' "$1"
  cat >> "$1" <<'YAML'
msm:
  enabled: true
  min_frames: 300
  n_microstates: 25
  lagtime: 2
  convergence_patience: 0
YAML
}
msm_spawn_config ms.yaml ms
"$TRAILS" run ms.yaml --iterations 10 > /dev/null
msm_spawn_config ms-ser.yaml ms-ser
TRAILS_MSM_OVERLAP=0 "$TRAILS" run ms-ser.yaml --iterations 10 > /dev/null
msm_spawn_config ms-res.yaml ms-res
"$TRAILS" run ms-res.yaml --iterations 4 > /dev/null
"$TRAILS" run ms-res.yaml --iterations 10 --resume > /dev/null
export_run ms ms
for d in ms-ser ms-res; do
  export_run $d $d
  cmp ms.cvs.csv $d.cvs.csv || fail "msm spawner: $d CV export differs"
  cmp ms.lineage.csv $d.lineage.csv || fail "msm spawner: $d lineage differs"
  msm_models ms > ms.msm
  msm_models $d > $d.msm
  cmp ms.msm $d.msm || fail "msm spawner: $d MSM builds differ"
done
write_config dens.yaml dens
"$TRAILS" run dens.yaml --iterations 10 > /dev/null
export_run dens dens
cmp -s dens.lineage.csv ms.lineage.csv && fail "msm spawner chose the same frames as the density spawner"
pass "MSM-guided spawner: deterministic, overlapped = serial = resumed, differs from density"
