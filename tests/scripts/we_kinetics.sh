#!/usr/bin/env bash
# Weighted-ensemble kinetics on the built-in double well (docs/kinetics.md): spawn_scheme we with
# recycling at x >= 1 and inherited Langevin velocities. Every iteration's walker weights sum to
# 1; recycled walkers restart from the frozen basis (frame 0:0:0); the flux is in the ledger,
# output.log, `trails status`, `trails analyze` (the MFPT block), `trails plot` (an MFPT panel in
# convergence.png, and flux_convergence.png) and `trails report` (which embeds it). Inherited
# velocities change the run; a kill -9 in the middle followed by --resume exports byte for byte
# what an uninterrupted run exports (weights, flux and the resampler's state included), with the
# uniform grid and with each adaptive binning.scheme. Bad kinetics configurations exit 2 before
# anything is written.
source "$(dirname "$0")/lib/common.bash"

# we_config FILE OUTDIR [extra spawning lines...]
we_config() {
  local file=$1 outdir=$2
  shift 2
  cat > "$file" <<YAML
outdir: $outdir
random_seed: 5
n_bins: [12]
min_values: [-1.6]
max_values: [1.0]
system:
  start: [-1.0]
engine:
  md_engine: builtin
  potential: double_well
  integrator: langevin
  kT: 0.5
  dt: 0.002
spawning:
  walker: 16
  step: 50
  stride: 10
  max_workers: 2
  spawn_scheme: we
  recycle_target: [[1.0, 5.0]]
YAML
  local line
  for line in "$@"; do echo "  $line" >> "$file"; done
}

# ledger_dump RUN_DIR: weights, parents and recycling, one line each (for byte comparisons)
ledger_dump() {
  /usr/bin/python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/ledger.sqlite")
for row in db.execute("SELECT iteration, walker, weight, parent_key FROM walkers ORDER BY 1, 2"):
    print(*row)
for row in db.execute("SELECT * FROM recycling ORDER BY 1"):
    print("recycling", *row)
PY
}

we_config we.yaml we "inherit_velocities: true"
"$TRAILS" run we.yaml --iterations 30 > we.out 2>&1 || fail "we run: $(cat we.out)"
/usr/bin/python3 - we <<'PY' || fail "weights, parents or flux"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/ledger.sqlite")
its = [r[0] for r in db.execute("SELECT iteration FROM iterations ORDER BY 1")]
assert its == list(range(30)), its
for it in its:
    w = [r[0] for r in db.execute("SELECT weight FROM walkers WHERE iteration = ?", (it,))]
    assert abs(sum(w) - 1) < 1e-9 and min(w) > 0, (it, sum(w))
flux = dict(db.execute("SELECT iteration, flux FROM recycling"))
assert sorted(flux) == its, flux
assert sum(flux.values()) > 0, "nothing reached x >= 1 in 30 iterations"
# A recycled walker's child restarts from the basis, frame 0 of walker 0 of iteration 0.
n = db.execute("SELECT count(*) FROM walkers WHERE parent_key = '0:0:0' AND iteration > 1").fetchone()[0]
assert n > 0, "no walker restarted from the recycling basis"
print("flux events", sum(1 for f in flux.values() if f > 0), "basis restarts", n)
PY
grep -q $'\trecycled_flux\trecycled_walkers\tmfpt' we/output.log || fail "output.log columns"
"$TRAILS" status we > status.out || fail "status"
grep -q "^mfpt " status.out || fail "status has no MFPT: $(cat status.out)"
"$TRAILS" status we --json | /usr/bin/python3 -c '
import json, sys
k = json.load(sys.stdin)["kinetics"]
assert k["iterations"] == 30 and k["unit"] == "time units" and abs(k["tau"] - 0.1) < 1e-12, k' ||
  fail "status --json kinetics"
"$TRAILS" analyze we --json analyze.json > analyze.out || fail "analyze: $(cat analyze.out)"
grep -q "^mfpt " analyze.out || fail "analyze has no MFPT block: $(cat analyze.out)"
/usr/bin/python3 -c 'import json; m = json.load(open("analyze.json"))["mfpt"]; assert m["discard_fraction"] == 0.5, m' ||
  fail "analyze --json mfpt"
"$TRAILS" plot we --output plots > plot.out 2>&1 || fail "plot: $(cat plot.out)"
[ -s plots/convergence.png ] || fail "plot: no convergence.png"
grep -qx "wrote plots/flux_convergence.png" plot.out || fail "plot: no flux_convergence.png: $(cat plot.out)"
/usr/bin/python3 - plots/flux_convergence.png <<'PY' || fail "flux_convergence.png is not a 1000x600 picture"
import struct, sys
b = open(sys.argv[1], "rb").read()
assert b[:8] == b"\x89PNG\r\n\x1a\n" and b[-8:-4] == b"IEND" and len(b) > 8000
assert struct.unpack(">II", b[16:24]) == (1000, 600), struct.unpack(">II", b[16:24])
PY
"$TRAILS" report we > report.out 2>&1 || fail "report: $(cat report.out)"
grep -q "Weighted-ensemble flux and MFPT" we/report/index.html || fail "report: no flux_convergence picture"
pass "we: weights sum to 1, recycling to the basis, flux in ledger/output.log/status/analyze/plot"

# Inherited velocities have an effect; a crash + resume is byte-identical.
we_config fresh.yaml fresh
"$TRAILS" run fresh.yaml --iterations 30 > /dev/null || fail "fresh-velocity run"
sed -e '/recycle_target/d' fresh.yaml | sed 's/^outdir: fresh/outdir: norecycle/' > norecycle.yaml
"$TRAILS" run norecycle.yaml --iterations 3 > /dev/null || fail "a WE run without recycling"
"$TRAILS" plot norecycle --output noplots > /dev/null || fail "plot without recycling"
[ ! -e noplots/flux_convergence.png ] || fail "flux_convergence.png drawn for a run that never recycles"
export_run we we
export_run fresh fresh
! cmp -s we.cvs.csv fresh.cvs.csv || fail "inherit_velocities changed nothing"
we_config crash.yaml crash "inherit_velocities: true"
crash_then_resume crash.yaml md:14 30
export_run crash crash
cmp we.cvs.csv crash.cvs.csv || fail "resumed CV export differs"
cmp we.lineage.csv crash.lineage.csv || fail "resumed lineage differs"
cmp <(ledger_dump we) <(ledger_dump crash) || fail "resumed weights or flux differ"
cmp <(grep -v '^#' we/output.log | cut -f1,5-12,16-) <(grep -v '^#' crash/output.log | cut -f1,5-12,16-) ||
  fail "resumed output.log differs"
pass "we: inherited velocities matter; kill -9 at md:14 + --resume is byte-identical"

# Adaptive bins (binning.scheme gradient | mab | eigenvector; docs/kinetics.md "Adaptive bins"):
# edges refitted to the live end points at every resampling. Weights sum to 1 every iteration,
# gradient and mab resample differently from the uniform grid, and kill -9 + --resume is
# byte-identical (the binner's bins are in the spawner's checkpointed state).
for scheme in gradient mab eigenvector; do
  we_config "$scheme.yaml" "$scheme" "inherit_velocities: true"
  printf 'binning:\n  scheme: %s\n' "$scheme" >> "$scheme.yaml"
  "$TRAILS" run "$scheme.yaml" --iterations 20 > "$scheme.out" 2>&1 || fail "$scheme run: $(cat "$scheme.out")"
  /usr/bin/python3 - "$scheme" <<'PY' || fail "$scheme: weights"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/ledger.sqlite")
for it in range(20):
    w = [r[0] for r in db.execute("SELECT weight FROM walkers WHERE iteration = ?", (it,))]
    assert w and abs(sum(w) - 1) < 1e-9 and min(w) > 0, (it, sum(w))
PY
  export_run "$scheme" "$scheme"
  we_config "crash-$scheme.yaml" "crash-$scheme" "inherit_velocities: true"
  printf 'binning:\n  scheme: %s\n' "$scheme" >> "crash-$scheme.yaml"
  crash_then_resume "crash-$scheme.yaml" md:9 20
  export_run "crash-$scheme" "crash-$scheme"
  cmp "$scheme.cvs.csv" "crash-$scheme.cvs.csv" || fail "$scheme: resumed CV export differs"
  cmp "$scheme.lineage.csv" "crash-$scheme.lineage.csv" || fail "$scheme: resumed lineage differs"
  cmp <(ledger_dump "$scheme") <(ledger_dump "crash-$scheme") || fail "$scheme: resumed weights differ"
done
we_config uniform20.yaml uniform20 "inherit_velocities: true"
"$TRAILS" run uniform20.yaml --iterations 20 > /dev/null || fail "uniform 20-iteration run"
export_run uniform20 uniform20
! cmp -s uniform20.lineage.csv gradient.lineage.csv || fail "binning.scheme gradient changed nothing"
! cmp -s uniform20.lineage.csv mab.lineage.csv || fail "binning.scheme mab changed nothing"
pass "we with binning.scheme gradient, mab, eigenvector: weights sum to 1, kill -9 + --resume byte-identical"

# A per-bin allocation: we_target_per_bin walkers in every occupied bin.
we_config perbin.yaml perbin "we_allocation: per_bin" "we_target_per_bin: 3"
"$TRAILS" run perbin.yaml --iterations 6 > /dev/null || fail "per_bin run"
/usr/bin/python3 - perbin <<'PY' || fail "per_bin walkers"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1] + "/ledger.sqlite")
counts = [r[0] for r in db.execute("SELECT count(*) FROM walkers GROUP BY iteration ORDER BY iteration")]
assert all(c % 3 == 0 for c in counts[1:]) and len(set(counts)) > 1, counts
PY
pass "we_allocation per_bin: 3 walkers in every occupied bin (the walker count follows occupancy)"

# Bad kinetics configurations: exit 2, nothing written.
we_config bad1.yaml bad "inherit_velocities: true"
sed -i 's/integrator: langevin/integrator: overdamped/' bad1.yaml
expect_exit 2 "overdamped inherit" "has no velocities to continue" "$TRAILS" check bad1.yaml
we_config bad2.yaml bad
sed -i 's/spawn_scheme: we/spawn_scheme: density/' bad2.yaml
expect_exit 2 "recycle with density" "spawning.recycle_target" "$TRAILS" check bad2.yaml
we_config bad3.yaml bad
sed -i 's/recycle_target: \[\[1.0, 5.0\]\]/recycle_target: [[1.0, 5.0], [0, 1]]/' bad3.yaml
expect_exit 2 "recycle boxes" "has 2 boxes but the CV space has 1 dimension" "$TRAILS" check bad3.yaml
[ ! -e bad ] || fail "a refused configuration created its run directory"
pass "bad kinetics configurations exit 2 naming the key, nothing written"
