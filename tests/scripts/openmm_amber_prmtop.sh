#!/usr/bin/env bash
# Amber inputs (system.conf_file .inpcrd + system.top_file .prmtop, hand-written for two argon
# atoms in vacuum: tests/data/openmm/argon-amber) run a 2-iteration OpenMM campaign over the
# Ar–Ar distance; the ledger's distances equal mdtraj's on the stored frames.
source "$(dirname "$0")/lib/common.bash"
export PYTHONPATH="$ROOT/share/trails/python"  # trails_run.shard_positions decodes the grid
DATA="$ROOT/tests/data/openmm/argon-amber"
cat > amber.yaml <<YAML
outdir: amber
random_seed: 3
iterations: 2
cvs:
  - {name: r, kind: distance, atoms: [0, 1]}
n_bins: [30]
min_values: [0.2]
max_values: [2.0]
system:
  conf_file: $DATA/argon2.inpcrd
  top_file: $DATA/argon2.prmtop
engine:
  md_engine: openmm
  platform_name: Reference
  dt: 0.002
spawning:
  walker: 2
  step: 100
  stride: 10
  max_workers: 1
YAML
"$TRAILS" run amber.yaml > amber.out 2>&1 || fail "prmtop campaign: $(cat amber.out)"
[ "$(committed amber)" -eq 2 ] || fail "2 iterations should be committed"
grep -q '"source":"prmtop"\|"source": "prmtop"' amber/prepared/*/prepare.json || fail "not prepared from the prmtop"
/usr/bin/python3 - <<'PY' || fail "distance CVs differ from mdtraj"
import glob, h5py, numpy as np, mdtraj as md
from trails_run import shard_positions
top = md.load(glob.glob("amber/prepared/*/topology.pdb")[0]).topology
for shard in sorted(glob.glob("amber/shards/iter_*.h5")):
    with h5py.File(shard, "r") as f:
        xyz = shard_positions(f)
        cvs = f["observables/cvs/value"][...]
    assert xyz.shape == (20, 2, 3), xyz.shape
    r = md.compute_distances(md.Trajectory(xyz, top), [[0, 1]], periodic=False)
    assert np.abs(r - cvs).max() < 1e-5, np.abs(r - cvs).max()
print("ok")
PY
pass "inpcrd + prmtop: OpenMM campaign runs; Ar-Ar distances agree with mdtraj"
