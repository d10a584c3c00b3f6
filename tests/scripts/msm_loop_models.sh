#!/usr/bin/env bash
# The in-loop MSM's optional outputs and its learned-space mode, on built-in campaigns:
#  - PCCA+ (msm.n_metastable: 2) on the double well splits the microstates at the barrier, the
#    populations are the sums of pi over the crisp sets, and the stationary_distribution
#    criterion takes part in convergence;
#  - the Bayesian estimator reports finite timescale errors, the statistical_error criterion is
#    evaluated, and overlapped, serial and crashed + resumed runs give the same bits;
#  - a learned space (pca) with the MSM spawner: every retrain rebuilds the model in the new
# space before spawning (fix:stale-latent-space), and serial, overlapped and resumed runs agree
# bitwise.
source "$(dirname "$0")/lib/common.bash"

dw_config() {  # FILE OUTDIR [extra msm lines]
  double_well_config "$1" "$2"
  printf 'msm:\n  enabled: true\n  min_frames: 500\n  n_microstates: 20\n  lagtime: 5\n' >> "$1"
  local line
  for line in "${@:3}"; do echo "  $line" >> "$1"; done
}

# --- PCCA+ on the double well ---
dw_config pc.yaml pc "n_metastable: 2" "convergence_patience: 2" "convergence_criteria:" \
  "  its: {tol: 0.1, n: 1}" "  stationary_distribution: {tol: 0.05}"
"$TRAILS" run pc.yaml --iterations 40 > pc.out 2>&1 || fail "PCCA+ run failed: $(cat pc.out)"
/usr/bin/python3 - pc <<'PY' || fail "PCCA+ in the loop"
import json, sqlite3, sys
run = sys.argv[1]
db = sqlite3.connect(run + "/ledger.sqlite")
rows = [json.loads(m) for (m,) in db.execute("SELECT model FROM msm_builds ORDER BY iteration")]
built = [r for r in rows if r["metastable_populations"] is not None]
assert built, "no build has PCCA+ sets"
for r in built:
    assert r["n_metastable"] == 2, r["n_metastable"]
    a, pi, pops = r["metastable_assignments"], r["stationary_distribution"], r["metastable_populations"]
    assert len(a) == r["n_active"] and set(a) <= {0, 1}, a
    for s in (0, 1):
        assert abs(pops[s] - sum(p for p, x in zip(pi, a) if x == s)) < 1e-12, (pops, s)
    assert abs(sum(pops) - 1) < 1e-12, pops
    chi = r["metastable_memberships"]
    assert all(abs(sum(row) - 1) < 1e-9 and min(row) >= -1e-12 for row in chi)
    # The two sets are the two wells: along x the crisp labels change exactly once.
    c = r["cluster_centers"]
    xs = sorted((c[state], a[i]) for i, state in enumerate(r["active_set"]))
    labels = [l for _, l in xs]
    changes = sum(1 for u, v in zip(labels, labels[1:]) if u != v)
    assert changes == 1, xs
    left = labels[0]
    assert all(x < 0.5 for x, l in xs if l == left) and all(x > -0.5 for x, l in xs if l != left), xs
conv = json.load(open(run + "/convergence.json"))
assert conv["converged"], conv
assert "stationary_distribution: sum |change| of populations" in conv["convergence_reason"], conv
print("ok-pcca", len(built), built[-1]["metastable_populations"])
PY
"$TRAILS" status pc | grep -Eq "PCCA\+ 2 metastable sets: populations \[0\.[0-9]{3}, 0\.[0-9]{3}\]" \
  || fail "status does not show the PCCA+ populations: $("$TRAILS" status pc)"
"$TRAILS" analyze pc > pc-analyze.out || fail "analyze of the PCCA+ run failed: $(cat pc-analyze.out)"
grep -Eq "^metastable +2 PCCA\+ sets: populations 0\.[0-9]+, 0\.[0-9]+ \(F [0-9.]+, [0-9.]+ reduced units\)" pc-analyze.out \
  || fail "trails analyze does not report the PCCA+ populations: $(cat pc-analyze.out)"
pass "PCCA+ in the loop: the two wells, populations = sum of pi, stationary_distribution criterion"

# --- Bayesian estimator: errors, determinism, resume ---
bayes() { dw_config "$1" "$2" "estimator: bayesian" "n_bayesian_samples: 20" "lagtimes: [2, 5, 20]" \
  "convergence_patience: 0" \
  "convergence_criteria:" "  its: {tol: 0.1}" "  statistical_error: {tol: 0.5}"; }
bayes by.yaml by
"$TRAILS" run by.yaml --iterations 8 > by.out 2>&1 || fail "Bayesian run failed: $(cat by.out)"
/usr/bin/python3 - by <<'PY' || fail "Bayesian MSM in the loop"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/ledger.sqlite")
rows = [json.loads(m) for (m,) in db.execute("SELECT model FROM msm_builds ORDER BY iteration")]
assert rows
for r in rows:
    assert r["estimator"] == "bayesian", r["estimator"]
    e, t = r["timescale_errors"], r["timescales"]
    assert len(e) == len(t) and all(x is not None and x > 0 for x in e), (e, t)
    # Effective counts are fewer than sliding pairs: the count matrix sums below the frames.
    assert sum(map(sum, r["count_matrix"])) < r["frames"], r["frames"]
    assert "statistical_error: std/t2 " in r["criteria"], r["criteria"]
    # The ITS band: a sigma per timescale at every lag of the ladder; the model lag's are the
    # model's own errors, the other lags' are sampled on their own effective counts.
    ie, its = r["its_errors"], r["its"]
    assert sorted(ie) == sorted(its) == ["2", "20", "5"], (ie, its)
    assert ie["5"][:len(e)] == e, (ie["5"], e)
    for lag in ("2", "20"):
        assert all(s is not None and s > 0 for s, t in zip(ie[lag], its[lag]) if t is not None), (lag, ie, its)
# The errors shrink as the data grow (the last build has several times the first one's frames).
assert rows[-1]["frames"] > 3 * rows[0]["frames"]
assert rows[-1]["timescale_errors"][0] / rows[-1]["timescales"][0] < rows[0]["timescale_errors"][0] / rows[0]["timescales"][0], rows
print("ok-bayes", rows[-1]["timescales"], rows[-1]["timescale_errors"])
PY
"$TRAILS" status by | matches "Bayesian MSM: timescale std \[" || fail "status lacks the Bayesian errors"
bayes by-ser.yaml by-ser
TRAILS_MSM_OVERLAP=0 "$TRAILS" run by-ser.yaml --iterations 8 > /dev/null
msm_models by > by.msm
msm_models by-ser > by-ser.msm
cmp by.msm by-ser.msm || fail "Bayesian builds differ between overlapped and serial order"
bayes by-crash.yaml by-crash
crash_then_resume by-crash.yaml after-commit:4 8
msm_models by-crash > by-crash.msm
cmp by.msm by-crash.msm || fail "Bayesian builds differ after crash + resume"
pass "Bayesian MSM: finite errors shrinking with data; overlapped = serial = crashed + resumed"

# --- learned space (pca) + MSM spawner ---
learned() {  # FILE OUTDIR
  cat > "$1" <<YAML
outdir: $2
random_seed: 11
n_bins: [30]
space_mode: pca
retrain_freq: 3
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
  max_workers: 2
  spawn_scheme: msm
  spawn_type: hard
msm:
  enabled: true
  cadence: 4
  min_frames: 200
  n_microstates: 15
  lagtime: 2
  convergence_patience: 0
YAML
}
learned ls.yaml ls
"$TRAILS" run ls.yaml --iterations 11 > ls.out 2>&1 || fail "learned-space MSM run failed: $(cat ls.out)"
/usr/bin/python3 - ls <<'PY' || fail "learned-space MSM builds"
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/ledger.sqlite")
rows = {it: json.loads(m) for it, m in db.execute("SELECT iteration, model FROM msm_builds")}
# cadence 4 builds at 4 and 8; the retrains at 6 and 9 find a model of the old space and
# rebuild it at once (refit, no warm start), the retrain at 3 has no model yet.
assert sorted(rows) == [4, 6, 8, 9], sorted(rows)
for it in (6, 9):
    assert rows[it]["refit"], it
    assert rows[it]["note"] == "", rows[it]["note"]
print("ok-learned", sorted(rows))
PY
learned ls-ser.yaml ls-ser
TRAILS_MSM_OVERLAP=0 "$TRAILS" run ls-ser.yaml --iterations 11 > /dev/null
learned ls-res.yaml ls-res
"$TRAILS" run ls-res.yaml --iterations 7 > /dev/null
"$TRAILS" run ls-res.yaml --iterations 11 --resume > /dev/null || fail "learned-space MSM resume failed"
learned ls-crash.yaml ls-crash
crash_then_resume ls-crash.yaml after-commit:6 11
export_run ls ls
msm_models ls > ls.msm
for d in ls-ser ls-res ls-crash; do
  export_run $d $d
  cmp ls.cvs.csv $d.cvs.csv || fail "learned-space MSM: $d CV export differs"
  cmp ls.lineage.csv $d.lineage.csv || fail "learned-space MSM: $d lineage differs"
  msm_models $d > $d.msm
  cmp ls.msm $d.msm || fail "learned-space MSM: $d MSM builds differ"
done
pass "learned space + MSM spawner: rebuilt after each retrain; overlapped = serial = resumed = crashed + resumed"
