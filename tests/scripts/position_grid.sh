#!/usr/bin/env bash
# XTC-like storage (output.position_precision, docs/file-formats.md "Quantised positions") on a
# tiny OpenMM alanine-dipeptide campaign (Reference, vacuum). The default keeps positions on a
# 0.001 nm grid: iteration 0's stored frames are an exact run's frames rounded to the grid (error
# at most 0.0005 nm), its final states are the exact run's bit for bit, the Python reader and the
# Trails-MD layout export give the grid values. A run made before position grids (its ledger
# without the entry, its shards float64) resumes unchanged with a config that leaves the key out
# and then with one that says `exact` (the same meaning): bitwise equal to an uninterrupted exact
# run; one that names a grid is refused, naming output.position_precision, nothing changed. A run
# killed before its first commit takes the configuration's precision on --resume.
# (Kill and resume with the grid: openmm_campaign.sh.)
source "$(dirname "$0")/lib/common.bash"
export PYTHONPATH="$ROOT/share/trails/python"
checksums() { sqlite3 "$1/ledger.sqlite" "SELECT iteration, shard_checksum FROM iterations ORDER BY iteration"; }

alad_config grid.yaml grid 2
alad_config exact.yaml exact 2
sed -i "s|^iterations: 3|iterations: 2|" grid.yaml
printf 'output:\n  position_precision: exact\n' >> exact.yaml
"$TRAILS" run grid.yaml > grid.out 2>&1 || fail "grid run: $(cat grid.out)"
"$TRAILS" run exact.yaml > exact.out 2>&1 || fail "exact run: $(cat exact.out)"
"$TRAILS" export grid --trails-md-layout grid-md > /dev/null || fail "export --trails-md-layout"

/usr/bin/python3 - <<'PY' || fail "grid frames, final states or readers wrong"
import glob, h5py, numpy as np, mdtraj as md
from trails_run import Run, shard_positions
with h5py.File("grid/shards/iter_000000.h5", "r") as g, h5py.File("exact/shards/iter_000000.h5", "r") as e:
    policy = g["trails/record_policy"].attrs
    assert policy["precision"] == b"grid" and policy["position_precision"] == 0.001, dict(policy)
    assert g["particles/walkers/position/value"].dtype == np.uint32
    xg, xe = shard_positions(g), shard_positions(e)
    assert e["trails/record_policy"].attrs["precision"] == b"float64"
    # Same starts and seeds: the grid run stored the exact run's frames, rounded to the grid.
    err = np.abs(xg - xe).max()
    assert err <= 0.0005 * (1 + 1e-9), err
    assert np.array_equal(xg, np.rint(xe / 0.001) * 0.001)
    for k in ("positions", "velocities"):  # final states: exact float64, bit for bit
        a, b = g[f"trails/final_state/{k}"][...], e[f"trails/final_state/{k}"][...]
        assert a.dtype == np.float64 and np.array_equal(a, b), k
    stored = g["particles/walkers/position/value"].id.get_storage_size()
    full = e["particles/walkers/position/value"].id.get_storage_size()
    assert stored * 2 < full, (stored, full)
    walker = g["observables/walker/value"][...]
run = Run("grid")
for w in range(4):
    assert np.array_equal(run.frames(0, w), xg[walker == w]), w
top = glob.glob("grid/prepared/*/topology.pdb")[0]
t = md.load("grid-md/iter_0/iteration_0_1.xtc", top=top)
assert t.n_frames == 10 and np.abs(t.xyz - xg[walker == 1]).max() < 1e-6
print("ok: max |grid - exact|", err, "nm; position bytes", stored, "vs", full)
PY
pass "the default 0.001 nm grid: frames within half a step, final states exact, readers agree"

# A run made before position grids: exact shards, a ledger without meta.position_precision, and
# the digest of a config without the key (the grid run's, whose config differs only in outdir).
alad_config old.yaml old 2
printf 'output:\n  position_precision: exact\n' >> old.yaml
set +e
TRAILS_CRASH_AT=after-commit:0 "$TRAILS" run old.yaml > old.out 2>&1
rc=$?
set -e
[ $rc -eq 137 ] || fail "expected death by SIGKILL (137), got $rc: $(cat old.out)"
sqlite3 old/ledger.sqlite "ATTACH 'grid/ledger.sqlite' AS g;
  UPDATE meta SET value = (SELECT value FROM g.meta WHERE key = 'config') WHERE key = 'config';
  UPDATE meta SET value = (SELECT value FROM g.meta WHERE key = 'config_digest') WHERE key = 'config_digest';
  DELETE FROM meta WHERE key = 'position_precision';"
sed "s|^outdir: grid|outdir: old|" grid.yaml > old-resume.yaml
# A grid named in the file is another storage: refused, naming the key, nothing changed.
sed "s|^outdir: grid|outdir: old|" grid.yaml > old-grid.yaml
printf 'output:\n  position_precision: 0.001\n' >> old-grid.yaml
# What the run holds (an open, readers too, may create or touch SQLite's -wal and -shm files).
kept() {
  sqlite3 old/ledger.sqlite "SELECT key, value FROM meta ORDER BY key"
  checksums old
  find old -path old/ledger.sqlite\* -prune -o -type f -printf '%P %s\n' | sort
}
before=$(kept)
expect_exit 2 "an older run resumed with a grid" "output.position_precision" \
  "$TRAILS" run old-grid.yaml --resume
grep -qF 'output.position_precision: "exact" -> 0.001' err.txt ||
  fail "the refusal does not say the run is exact: $(cat err.txt)"
[ "$(kept)" = "$before" ] || fail "a refused resume changed the run directory: $(diff <(echo "$before") <(kept))"
"$TRAILS" run old-resume.yaml --resume --iterations 2 > old-resume.out 2>&1 || fail "old run resume: $(cat old-resume.out)"
# Saying exact is what the older run means: accepted, and it stays exact to the end.
"$TRAILS" run old.yaml --resume > old-exact.out 2>&1 || fail "old run resumed saying exact: $(cat old-exact.out)"
[ "$(checksums old)" = "$(checksums exact)" ] || fail "the resumed older run differs from an uninterrupted exact run"
pass "a run made before position grids resumes exact (key left out, or exact), bitwise; a grid is refused naming the key"

# A run killed before its first commit holds no position yet: resumed with another
# position_precision it takes the configuration's value (a recorded change) and is then byte
# for byte the run a fresh start with that value makes; after the first commit the grid stays.
# The built-in engine's point system (exact by default) keeps this part cheap.
write_config early.yaml early
sed 's|^outdir: early|outdir: fresh|' early.yaml > fresh.yaml
printf 'output:\n  position_precision: 0.01\n' >> fresh.yaml
"$TRAILS" run fresh.yaml --iterations 2 > fresh.out 2>&1 || fail "fresh grid run: $(cat fresh.out)"
set +e
TRAILS_CRASH_AT=md:0 "$TRAILS" run early.yaml --iterations 2 > early.out 2>&1
rc=$?
set -e
[ $rc -eq 137 ] || fail "expected death by SIGKILL in iteration 0 (137), got $rc: $(cat early.out)"
[ -z "$(checksums early)" ] || fail "an iteration was committed before the kill: $(checksums early)"
sed 's|^outdir: fresh|outdir: early|' fresh.yaml > early-grid.yaml
"$TRAILS" run early-grid.yaml --iterations 2 --resume > early-grid.out 2>&1 ||
  fail "resume of an uncommitted run with another grid: $(cat early-grid.out)"
[ "$(sqlite3 early/ledger.sqlite "SELECT value FROM meta WHERE key = 'position_precision'")" = 0.01 ] ||
  fail "meta.position_precision is not the configuration's: $(sqlite3 early/ledger.sqlite "SELECT * FROM meta WHERE key = 'position_precision'")"
[ "$(sqlite3 early/ledger.sqlite "SELECT iteration, key, after FROM config_changes")" = '0|output.position_precision|0.01' ] ||
  fail "the change is not recorded: $(sqlite3 early/ledger.sqlite "SELECT * FROM config_changes")"
[ "$(checksums early)" = "$(checksums fresh)" ] || fail "the resumed run differs from a fresh run with the grid"
expect_exit 2 "exact after the first commit" "output.position_precision" \
  "$TRAILS" run early.yaml --iterations 3 --resume
pass "a run with no commit resumed with a 0.01 grid takes it (recorded), bitwise a fresh grid run; then it stays"

alad_config both.yaml both 2
printf 'output:\n  precision: float32\n  position_precision: 0.001\n' >> both.yaml
set +e
"$TRAILS" run both.yaml > both.out 2>&1
rc=$?
set -e
[ $rc -eq 2 ] && grep -q "output.position_precision" both.out || fail "float32 with a grid must be refused (exit 2): rc $rc $(cat both.out)"
[ ! -e both ] || fail "a refused config must write nothing"
pass "output.precision: float32 together with a position grid is refused (exit 2)"
