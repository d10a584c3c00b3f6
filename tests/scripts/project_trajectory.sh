#!/usr/bin/env bash
# `trails project RUN TRAJECTORY` (docs/cvs.md, "Using a stored model"): the frames of a
# trajectory go through the run's own features (adaptive_feature_type over
# system.feature_selection, on the run's prepared topology) and then the stored model. A tiny
# OpenMM alanine-dipeptide TICA campaign on heavy-atom distances: its own exported iteration as
# DCD, XTC and PDB projects to its stored CVs within each format's precision (docs/cvs.md gives
# the tolerances); a trajectory of another atom count, a run without its topology (then given
# with --topology), a missing --topology file and a built-in run's "trajectory" exit 2 naming
# the file.
source "$(dirname "$0")/lib/common.bash"
PDB="$ROOT/examples/alanine-dipeptide/alanine-dipeptide.pdb"

cat > tica.yaml <<YAML
outdir: tica
random_seed: 5
iterations: 2
space_mode: tica
n_bins: [10, 10]
adaptive_feature_type: distances
adaptive_model:
  lagtime: 2
cvs:
  - {name: phi, kind: phi, resid: 2}
  - {name: psi, kind: psi, resid: 2}
system:
  conf_file: $PDB
  forcefield: [amber14-all.xml]
  feature_selection: protein and not (type H)
engine:
  md_engine: openmm
  platform_name: Reference
  dt: 0.002
spawning:
  walker: 4
  step: 100
  stride: 10
  max_workers: 2
  spawn_scheme: density
  spawn_type: hard
YAML
"$TRAILS" run tica.yaml > tica.out 2>&1 || fail "TICA campaign failed: $(cat tica.out)"
"$TRAILS" export tica --cvs cvs.csv --cv-names > /dev/null
for ext in dcd xtc pdb; do
  "$TRAILS" export tica --trajectory "it1.$ext" --iteration 1 > /dev/null || fail "export --trajectory .$ext"
  "$TRAILS" project tica "it1.$ext" --iteration 1 --out "p.$ext.csv" > "p.$ext.out" ||
    fail "project .$ext: $(cat "p.$ext.out")"
done
/usr/bin/python3 - <<'PY' || fail "projected trajectories against the stored CVs"
import csv
import numpy as np
rows = [r for r in csv.DictReader(open("cvs.csv")) if r["iteration"] == "1"]
stored = np.array([[float(r["tica_0"]), float(r["tica_1"])] for r in rows])
spread = stored.max(axis=0) - stored.min(axis=0)
# Tolerances relative to each CV's spread over the iteration: DCD holds float32 Å, PDB 0.001 Å,
# XTC 0.001 nm (docs/cvs.md).
for ext, tol in (("dcd", 1e-5), ("pdb", 3e-2), ("xtc", 1e-1)):
    got = list(csv.DictReader(open(f"p.{ext}.csv")))
    assert list(got[0].keys()) == ["tica_0", "tica_1"], got[0].keys()
    p = np.array([[float(r["tica_0"]), float(r["tica_1"])] for r in got])
    assert p.shape == stored.shape, (ext, p.shape, stored.shape)
    err = (np.abs(p - stored) / spread).max()
    print(f"{ext}: {len(p)} frames, max error {err:.2e} of the CV spread")
    assert err < tol, (ext, err)
PY
pass "the run's own exported iteration (DCD, XTC, PDB) projects to its stored CVs"

# Bad inputs: exit 2 naming the file, nothing written.
head -n 12 "$PDB" > short.pdb
expect_exit 2 "a trajectory of another atom count" "short.pdb" \
  "$TRAILS" project tica short.pdb --out bad.csv
mkdir copy && cp tica/ledger.sqlite copy/ && cp -r tica/shards copy/
expect_exit 2 "a run without its prepared topology" "copy has no prepared/<digest>/topology.pdb" \
  "$TRAILS" project copy it1.dcd --out bad.csv
expect_exit 2 "a missing --topology" "missing.pdb" \
  "$TRAILS" project copy it1.dcd --topology missing.pdb --out bad.csv
[ ! -e bad.csv ] || fail "a refused projection wrote its output"
"$TRAILS" project copy it1.dcd --iteration 1 --topology "$(ls tica/prepared/*/topology.pdb)" \
  --out copy.csv > /dev/null || fail "project with --topology"
cmp copy.csv p.dcd.csv || fail "--topology: the run's own topology gives other CVs"
pass "bad trajectories and missing topologies exit 2 naming the file; --topology stands in"
