#!/usr/bin/env bash
# Learned CV space in the loop (space_mode tica, built-in three_well, 1-D learned space): runs,
# serial and threaded runs are identical, and a SIGKILL at named points (before and after a
# retrain) then --resume reproduces the uninterrupted run byte for byte.
source "$(dirname "$0")/lib/common.bash"

learned_config() {  # FILE OUTDIR MAX_WORKERS [MODE [extra top-level lines]]
  three_well_learned_config "$1" "$2" "$3" "${4:-tica}" 10 "${@:5}"
}

learned_config ref.yaml ref 1
"$TRAILS" run ref.yaml > /dev/null
export_run ref ref
# One learned CV per frame, 10 iterations × 6 walkers × 30 frames.
header=$(awk 'NR == 1' ref.cvs.csv)
[ "$header" = "iteration,walker,frame,cv_0" ] || fail "expected one learned CV column: $header"
[ "$(wc -l < ref.cvs.csv)" -eq 1801 ] || fail "CV export rows"
"$TRAILS" export ref --cvs ref.named.csv --cv-names > /dev/null
[ "$(head -1 ref.named.csv)" = "iteration,walker,frame,tica_0" ] || fail "--cv-names of a tica space: $(head -1 ref.named.csv)"
pass "tica campaign: 1800 frames with one learned CV each"

learned_config threads.yaml threads 4
"$TRAILS" run threads.yaml > /dev/null
export_run threads threads
cmp ref.cvs.csv threads.cvs.csv || fail "4 workers: CV export differs from 1 worker"
cmp ref.lineage.csv threads.lineage.csv || fail "4 workers: lineage differs from 1 worker"
pass "serial and 4-thread learned-space runs identical"

# Retrains at iterations 0, 3, 6, 9: crash right after a retrain's commit, during the MD after
# it, and inside the ledger transaction of a skipped iteration.
for spec in after-commit:3=4 md:4=4 ledger-commit:5=5 after-commit:7=8 md:0=0; do
  point=${spec%=*}
  expect=${spec#*=}
  dir=crash-${point/:/-}
  learned_config "$dir.yaml" "$dir" 2
  crash_resume_matches "$dir" "$point" "$expect" ref
  pass "learned space, crash at $point: $got committed, resumed run identical"
done

# PCA with the VAMP-adaptive policy (its controller state and reference score must resume too).
vamp="retrain_policy: vamp_adaptive"
learned_config vref.yaml vref 2 pca "$vamp" "vamp_retrain_tol: 0.02" "retrain_max_interval: 4"
"$TRAILS" run vref.yaml > /dev/null
export_run vref vref
learned_config vcrash.yaml vcrash 2 pca "$vamp" "vamp_retrain_tol: 0.02" "retrain_max_interval: 4"
set +e
TRAILS_CRASH_AT=after-commit:5 "$TRAILS" run vcrash.yaml > vcrash.out 2>&1
set -e
"$TRAILS" run vcrash.yaml --resume > /dev/null || fail "vamp_adaptive: resume failed"
export_run vcrash vcrash
cmp vref.cvs.csv vcrash.cvs.csv || fail "vamp_adaptive pca: CV export differs after resume"
cmp vref.lineage.csv vcrash.lineage.csv || fail "vamp_adaptive pca: lineage differs after resume"
"$TRAILS" export vref --cvs vref.named.csv --cv-names > /dev/null
[ "$(head -1 vref.named.csv)" = "iteration,walker,frame,pca_0" ] || fail "--cv-names of a pca space: $(head -1 vref.named.csv)"
pass "pca + vamp_adaptive: crash after iteration 5 and resume identical"

# VAMP-2 feature selection on the built-in coordinates (max_features 1): the column chosen at
# iteration 0 is the one numpy scores highest (compat:vamp-column-selection on the walker segments),
# and a SIGKILL between selections (cadence 3) then --resume reproduces the uninterrupted run.
fsel=("feature_selection:" "  enabled: true" "  lagtime: 3" "  cadence: 3" "  max_features: 1")
learned_config fsel.yaml fsel 2 tica "${fsel[@]}"
"$TRAILS" run fsel.yaml > /dev/null
export_run fsel fsel
/usr/bin/python3 - fsel <<'PY' || fail "feature selection differs from the numpy VAMP-2 ranking"
import json, sqlite3, sys, h5py, numpy as np
run, lag = sys.argv[1], 3
db = sqlite3.connect(f"{run}/ledger.sqlite")
chosen = json.loads(db.execute("SELECT blob FROM element_state WHERE iteration = 0 AND key = 'space'").fetchone()[0])["selected_columns"]
with h5py.File(f"{run}/shards/iter_000000.h5", "r") as f:
    x = f["particles/walkers/position/value"][:, 0, :]
    walker = f["observables/walker/value"][...]
x0 = np.vstack([x[walker == w][:-lag] for w in np.unique(walker)])
xt = np.vstack([x[walker == w][lag:] for w in np.unique(walker)])
mu = 0.5 * (x0.mean(0) + xt.mean(0))
a, b = x0 - mu, xt - mu
score = [min(1.0, abs((a[:, c] @ b[:, c]) / np.sqrt((a[:, c] @ a[:, c]) * (b[:, c] @ b[:, c])))) ** 2
         for c in range(x.shape[1])]
assert chosen == [int(np.argmax(score))], (chosen, score)
print("selected", chosen, "scores", score)
PY
learned_config fcrash.yaml fcrash 2 tica "${fsel[@]}"
set +e
TRAILS_CRASH_AT=after-commit:4 "$TRAILS" run fcrash.yaml > fcrash.out 2>&1
set -e
"$TRAILS" run fcrash.yaml --resume > /dev/null || fail "feature selection: resume failed"
export_run fcrash fcrash
cmp fsel.cvs.csv fcrash.cvs.csv || fail "feature selection: CV export differs after resume"
cmp fsel.lineage.csv fcrash.lineage.csv || fail "feature selection: lineage differs after resume"
pass "built-in feature selection: numpy VAMP-2 agrees; crash after iteration 4 and resume identical"
