#!/usr/bin/env bash
# `trails reweight` (RiteWeight) on the built-in double well, a known answer: adaptive sampling
# (the density spawner restarts walkers in rarely visited bins) biases the frames' histogram
# towards the barrier and the walls; RiteWeight's frame weights must bring it back to the
# Boltzmann density exp(-V/kT)/Z of V(x) = (x^2 - 1)^2 at kT 0.5. Then `trails plot --weights`
# draws the reweighted fes.png, and the error cases exit 2 and write nothing.
source "$(dirname "$0")/lib/common.bash"

# Short segments (20 frames each) keep the walkers near their biased restart points, so the
# unweighted histogram is far from Boltzmann; the weights must undo that.
double_well_config dw.yaml dw 200
sed -i "s/^  walker: 8$/  walker: 16/" dw.yaml
cat >> dw.yaml <<'YAML'
  spawn_scheme: density
  spawn_type: hard
YAML
"$TRAILS" run dw.yaml --iterations 60 > run.out 2>&1 || fail "double-well campaign failed: $(cat run.out)"

"$TRAILS" reweight dw --iterations 1000 --average-last 300 > rw.out 2>&1 || fail "reweight failed: $(cat rw.out)"
grep -q "wrote .*dw.weights.csv" rw.out || fail "reweight: $(cat rw.out)"
[ -f dw.weights.csv ] || fail "no dw.weights.csv beside the run"
[ ! -e dw/dw.weights.csv ] || fail "weights written into the run"
"$TRAILS" export dw --cvs dw.cvs.csv

/usr/bin/python3 - dw.weights.csv dw.cvs.csv <<'PY' || fail "the reweighted density is not the Boltzmann density"
import json, sys
import numpy as np
lines = open(sys.argv[1]).read().splitlines()
assert lines[0].startswith("# trails reweight "), lines[0]
h = json.loads(lines[0][len("# trails reweight "):])
assert lines[1] == "iteration,walker,frame,weight"
for k in ("n_clusters", "n_iterations", "learning_rate", "seed", "converged", "drift", "run"):
    assert k in h, k
assert h["n_clusters"] == 100 and h["n_iterations"] == 1000 and h["seed"] == 42
w = np.loadtxt(sys.argv[1], delimiter=",", skiprows=2)
cv = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1)
assert (w[:, :3] == cv[:, :3]).all(), "weights rows are not the exported frames"
assert abs(w[:, 3].sum() - 1) < 1e-9 and (w[:, 3] >= 0).all()
x = cv[:, 3]
edges = np.linspace(-2.0, 2.0, 41)
# Boltzmann probability of each bin: exp(-V/kT) integrated by the midpoint rule (1000 points
# per bin; the error is far below the bounds) and normalised over [-2, 2] (V(+-2) = 9 = 18 kT:
# the mass outside is < 1e-7).
fine = np.linspace(-2.0, 2.0, 40001)
mid = 0.5 * (fine[1:] + fine[:-1])
dens = np.exp(-((mid**2 - 1) ** 2) / 0.5)
boltz = np.array([dens[(mid >= a) & (mid < b)].sum() for a, b in zip(edges[:-1], edges[1:])])
boltz /= boltz.sum()
def tv(p, q):
    return 0.5 * np.abs(p / p.sum() - q / q.sum()).sum()
plain = np.histogram(x, bins=edges)[0].astype(float)
weighted = np.histogram(x, bins=edges, weights=w[:, 3])[0]
L, R = slice(0, 20), slice(20, 40)  # the wells x < 0 and x > 0
res = {"all": (tv(plain, boltz), tv(weighted, boltz)),
       "left well": (tv(plain[L], boltz[L]), tv(weighted[L], boltz[L])),
       "right well": (tv(plain[R], boltz[R]), tv(weighted[R], boltz[R]))}
left = weighted[L].sum() / weighted.sum()
for k, (p, q) in res.items():
    print(f"total-variation distance to Boltzmann, {k}: unweighted {p:.3f}, RiteWeight {q:.3f}")
print(f"left-well population: RiteWeight {left:.3f}, Boltzmann 0.5")
# Bounds. The shape of each well comes from many short transitions and is well determined: the
# sampling noise of a 20-bin histogram of ~1000 effectively independent frames is E[TV] ~ 0.03;
# the reweighted shapes must be below 0.1 and below half the unweighted (biased) ones. The
# balance between the wells rests on the ~100 barrier crossings of the campaign, whose counting
# error moves the left-well population by ~0.1: over the seeds 7-10 of this campaign the
# reweighted left population was 0.37-0.55 and the total distance 0.05-0.14 (unweighted
# 0.25-0.27), so the bounds are 0.15 for both, and 0.6 of the unweighted distance.
(pa, qa), (pl, ql), (pr, qr) = res.values()
assert pa > 0.2, f"the campaign is not biased enough to test anything: {pa}"
assert qa < 0.15 and qa < 0.6 * pa, res
assert ql < 0.1 and ql < 0.5 * pl and qr < 0.1 and qr < 0.5 * pr, res
assert abs(left - 0.5) < 0.15, left
PY
pass "RiteWeight weights turn the biased double-well histogram into the Boltzmann density"

# The same seed gives the same file; another seed another file.
"$TRAILS" reweight dw -o again.csv --iterations 1000 --average-last 300 > /dev/null
cmp -s dw.weights.csv again.csv || fail "reweight is not deterministic for one seed"
"$TRAILS" reweight dw -o other.csv --iterations 200 --average-last 50 --seed 7 > /dev/null
! cmp -s again.csv other.csv || fail "--seed has no effect"
pass "reweight: one seed one file"

# --- trails plot --weights: fes.png from the weights ---
"$TRAILS" plot dw -o plots --weights dw.weights.csv > plot.out 2>&1 || fail "plot --weights failed: $(cat plot.out)"
for f in coverage.png occupancy.png fes.png; do
  /usr/bin/python3 - "plots/$f" <<'PY' || fail "plots/$f is not a complete PNG"
import sys
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n" and b.endswith(b"IEND\xaeB`\x82") and len(b) > 5000
PY
done
"$TRAILS" plot dw -o plain-plots > /dev/null || fail "plot without weights failed"
cmp -s plots/fes.png plain-plots/fes.png && fail "fes.png does not depend on --weights"
pass "plot --weights draws the reweighted fes.png"

# --- errors: exit 2, nothing written ---
before=$(snapshot dw)
expect_exit 2 "plot --weights missing file" "cannot open" "$TRAILS" plot dw -o p2 --weights nope.csv
[ ! -e p2 ] || fail "plot with a missing weights file wrote p2"
double_well_config other.yaml other 200
sed -i "s/^random_seed: 7/random_seed: 8/" other.yaml
"$TRAILS" run other.yaml --iterations 2 > /dev/null
"$TRAILS" reweight other --iterations 50 --average-last 10 > /dev/null
expect_exit 2 "weights of another run" "computed for another run" \
  "$TRAILS" plot dw -o p3 --weights other.weights.csv
[ ! -e p3 ] || fail "plot with another run's weights wrote p3"
printf 'iteration,walker,frame,weight\n' > bare.csv
expect_exit 2 "not a weights file" "not a \`trails reweight\` file" \
  "$TRAILS" plot dw -o p4 --weights bare.csv
expect_exit 2 "weights inside the run" "beside the run" "$TRAILS" reweight dw -o dw/w.csv
expect_exit 2 "weights over the ledger" "run store owns" "$TRAILS" reweight dw -o dw/ledger.sqlite
expect_exit 2 "bad --clusters" "--clusters 0" "$TRAILS" reweight dw -o x.csv --clusters 0
expect_exit 2 "bad --learning-rate" "--learning-rate" "$TRAILS" reweight dw -o x.csv --learning-rate -1
expect_exit 2 "not a run" "does not exist" "$TRAILS" reweight nowhere -o x.csv
[ ! -e x.csv ] || fail "a refused reweight wrote x.csv"
[ "$before" = "$(snapshot dw)" ] || fail "the run directory changed"
pass "reweight/plot --weights errors exit 2 and write nothing"
