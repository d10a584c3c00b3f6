#!/usr/bin/env bash
# The shards' record policy on a tiny OpenMM alanine-dipeptide campaign (Reference, vacuum):
# output.record_selection (heavy atoms) at output.precision float32 stores only those atoms as
# float32 (h5py), while the CVs equal a full-record run's bit for bit (computed before the
# reduction) and the final states stay full float64 with velocities; a run killed after a
# commit and resumed restarts from the stored spawn starts and reproduces the uninterrupted one;
# `trails export --trajectory` of the reduced shards opens in mdtraj and MDAnalysis with the
# matching topology subset; a reduced policy without spawning.history_window 0 is refused.
source "$(dirname "$0")/lib/common.bash"
PDB="$ROOT/examples/alanine-dipeptide/alanine-dipeptide.pdb"

alad_config() {  # FILE OUTDIR [output block lines...]
  local file=$1 outdir=$2
  shift 2
  cat > "$file" <<YAML
outdir: $outdir
random_seed: 11
iterations: 3
cvs:
  - {name: phi, kind: phi, resid: 2}
  - {name: psi, kind: psi, resid: 2}
n_bins: [30, 30]
min_values: [-3.141592653589793, -3.141592653589793]
max_values: [3.141592653589793, 3.141592653589793]
system:
  conf_file: $PDB
  forcefield: [amber14-all.xml]
engine:
  md_engine: openmm
  platform_name: Reference
  dt: 0.002
spawning:
  walker: 4
  step: 200
  stride: 20
  max_workers: 2
  spawn_scheme: density
  spawn_type: hard
  history_window: 0
YAML
  if [ $# -gt 0 ]; then
    echo "output:" >> "$file"
    for line in "$@"; do echo "  $line" >> "$file"; done
  fi
}
checksums() { sqlite3 "$1/ledger.sqlite" "SELECT iteration, shard_checksum FROM iterations ORDER BY iteration"; }

alad_config full.yaml full "position_precision: exact"  # exact float64: the records compared here
alad_config reduced.yaml reduced "record_selection: not element H" "precision: float32"
"$TRAILS" run full.yaml > full.out 2>&1 || fail "full-record run: $(cat full.out)"
"$TRAILS" run reduced.yaml > reduced.out 2>&1 || fail "reduced run: $(cat reduced.out)"
export_run full full
export_run reduced reduced
cmp full.cvs.csv reduced.cvs.csv || fail "the record policy changed the CVs"
cmp full.lineage.csv reduced.lineage.csv || fail "the record policy changed the lineage"
pass "CVs and lineage do not depend on the record policy"

/usr/bin/python3 - full reduced <<'PY' || fail "reduced shard layout"
import glob, sys, h5py, numpy as np
full, reduced = sys.argv[1], sys.argv[2]
for a, b in zip(sorted(glob.glob(f"{full}/shards/iter_*.h5")), sorted(glob.glob(f"{reduced}/shards/iter_*.h5"))):
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        xa = fa["particles/walkers/position/value"][...]
        xb = fb["particles/walkers/position/value"]
        atoms = fb["trails/record_policy/atoms"][...]
        assert xa.dtype == np.float64 and xb.dtype == np.float32, (xa.dtype, xb.dtype)
        assert fb["trails/record_policy"].attrs["precision"] == b"float32"
        assert xb.shape == (xa.shape[0], 10, 3), xb.shape  # alanine dipeptide: 10 heavy atoms
        assert np.array_equal(xb[...], xa[:, atoms, :].astype(np.float32))
        for f in (fa, fb):  # final states: every atom, float64, with velocities
            fs = f["trails/final_state"]
            assert fs["positions"].dtype == np.float64 and fs["positions"].shape[1:] == (22, 3)
            assert fs["velocities"].shape == fs["positions"].shape
            assert np.isfinite(fs["velocities"][...]).all()
        # Without a reduction the last frame of each walker is its final state, bit for bit.
        walker = fa["observables/walker/value"][...]
        for i, w in enumerate(fa["trails/final_state/walker"][...]):
            last = np.nonzero(walker == w)[0][-1]
            assert np.array_equal(fa["trails/final_state/positions"][i], xa[last]), w
        assert "spawn_starts" not in fa["trails"] and "spawn_starts" in fb["trails"]
        assert np.array_equal(fa["trails/final_state/positions"][...], fb["trails/final_state/positions"][...])
print("ok")
PY
pass "reduced shards hold the heavy atoms as float32; final states stay full float64"

# Killed after iteration 1 committed, then resumed: restarts come from the stored spawn starts.
alad_config crash.yaml crash "record_selection: not element H" "precision: float32"
set +e
TRAILS_CRASH_AT=after-commit:1 "$TRAILS" run crash.yaml > crash.out 2>&1
rc=$?
set -e
[ $rc -eq 137 ] || fail "expected death by SIGKILL (137), got $rc: $(cat crash.out)"
"$TRAILS" run crash.yaml --resume > resume.out 2>&1 || fail "resume: $(cat resume.out)"
export_run crash crash
cmp reduced.cvs.csv crash.cvs.csv || fail "resumed CV export differs from the uninterrupted run"
[ "$(checksums reduced)" = "$(checksums crash)" ] || fail "resumed shards differ"
pass "kill -9 and resume of a reduced-record campaign reproduce the uninterrupted one"

"$TRAILS" export reduced --trajectory reduced.xtc > /dev/null || fail "export --trajectory .xtc"
"$TRAILS" export reduced --trajectory reduced.pdb > /dev/null || fail "export --trajectory .pdb"
/usr/bin/python3 - <<'PY' || fail "the reduced export does not open in mdtraj/MDAnalysis"
import numpy as np, mdtraj as md, MDAnalysis as mda
t = md.load("reduced.xtc", top="reduced.pdb")
assert t.n_atoms == 10 and t.n_frames == 3 * 4 * 10, (t.n_atoms, t.n_frames)
assert all(a.element.symbol != "H" for a in t.topology.atoms)
u = mda.Universe("reduced.pdb", "reduced.xtc")
assert len(u.atoms) == 10 and len(u.trajectory) == 120
print("ok")
PY
pass "export --trajectory of reduced shards opens in mdtraj and MDAnalysis"
PYTHONPATH="$ROOT/share/trails/python" /usr/bin/python3 - <<'PY' || fail "Python reader on reduced shards"
import numpy as np, mdtraj as md
from trails_run import Run
run = Run("reduced")
atoms = run.record_atoms(0)
assert len(atoms) == 10 and run.frames(0, 0).shape == (10, 10, 3), (atoms, run.frames(0, 0).shape)
t, x = run.to_mdtraj(), md.load("reduced.xtc", top="reduced.pdb")
assert t.n_atoms == 10 and t.n_frames == x.n_frames == 120
assert [a.name for a in t.topology.atoms] == [a.name for a in x.topology.atoms]
assert np.abs(t.xyz - x.xyz).max() < 6e-4 and np.array_equal(np.float32(t.time), x.time)
print("ok")
PY
pass "the Python reader reads reduced shards: the recorded atoms, float32 widened, same as the export"

alad_config window.yaml window "precision: float32"
sed -i '/history_window: 0/d' window.yaml
set +e
"$TRAILS" run window.yaml > window.out 2>&1
rc=$?
set -e
[ $rc -eq 2 ] || fail "expected exit 2 for a reduced policy with history, got $rc"
grep -q "output.precision" window.out && grep -q "spawning.history_window" window.out ||
  fail "the error must name output.precision and spawning.history_window: $(cat window.out)"
[ ! -e window ] || fail "a refused config must write nothing"
pass "a reduced record policy that would make restarts impossible is refused (exit 2)"
