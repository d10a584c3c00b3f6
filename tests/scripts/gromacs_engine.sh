#!/usr/bin/env bash
# The GROMACS engine (docs/engines.md, "GROMACS") on Trails-MD's AlaD inputs (start.gro +
# topol.top, 1021 atoms, PME): `trails check` runs grompp once (a missing #include is exit 2 with
# grompp's own message and nothing written; step not a multiple of stride is refused). Then a
# 2-iteration campaign of 4 walkers x 10 steps (-reprod, one thread each), serial and threaded
# byte-identical, kill -9 + --resume bitwise, steps/stride frames per walker and no walker files
# left, and phi/psi CVs equal to mdtraj's on the exported frames. gmx is tests/scripts/gmx-for-tests
# (engine.gromacs_executable): native, or mdrun under qemu-x86_64 on a CPU without rdtscp, which
# Debian's mdrun refuses; only where neither runs is the MD half skipped (exit 77).
source "$(dirname "$0")/lib/common.bash"
source "$ROOT/tests/scripts/lib/gromacs.bash"
cp "$ROOT/tests/data/trails-md-examples/AlaD/"{start.gro,topol.top} .
mkdir -p scratch

gmx_config() {  # FILE OUTDIR MAX_WORKERS [extra engine lines]
  local file=$1 outdir=$2 workers=$3
  shift 3
  cat > "$file" <<YAML
outdir: $outdir
random_seed: 11
iterations: 2
n_bins: [12, 12]
min_values: [-3.141592653589793, -3.141592653589793]
max_values: [3.141592653589793, 3.141592653589793]
execution:
  scratch: $PWD/scratch
$(alad_phi_psi_gromacs)
spawning:
  walker: 4
  step: 10
  stride: 5
  max_workers: $workers
YAML
  local line
  for line in "$@"; do sed -i "/^engine:/a\\  $line" "$file"; done
}

# --- trails check: grompp once, its own message on a bad input ----------------------------------
gmx_config ok.yaml ok-out 2
"$TRAILS" check ok.yaml > check.out 2>&1 || fail "check: $(cat check.out)"
[ ! -e ok-out ] || fail "check created the outdir"
sed 's/amber99sb.ff\/forcefield.itp/no-such.ff\/forcefield.itp/' topol.top > broken.top
sed 's/top_file: topol.top/top_file: broken.top/; s/outdir: ok-out/outdir: broken-out/' ok.yaml > broken.yaml
expect_exit 2 "check with a missing #include" "gmx grompp refused the GROMACS inputs" \
  "$TRAILS" check broken.yaml
grep -q "no-such.ff/forcefield.itp" out.txt err.txt || fail "grompp's message is not quoted: $(cat out.txt err.txt)"
expect_exit 2 "run with a missing #include" "Fatal error" "$TRAILS" run broken.yaml
[ ! -e broken-out ] || fail "a refused run left its outdir"
sed 's/step: 10/step: 12/' ok.yaml > odd.yaml
expect_exit 2 "step not a multiple of stride" "spawning.step: 12 is not a multiple" "$TRAILS" check odd.yaml
pass "trails check runs grompp: a missing #include is exit 2 with grompp's message, nothing written"

# --- can this host run mdrun at all (natively or emulated)? ---------------------------------------
require_gmx_mdrun
set +e
"$TRAILS" run ok.yaml > ok.out 2>&1
rc=$?
set -e
[ $rc -eq 0 ] || fail "campaign: $(cat ok.out)"
[ "$(committed ok-out)" = 2 ] || fail "2 iterations should be committed"
[ -z "$(ls scratch)" ] || fail "walker files left in scratch: $(ls scratch)"
# mdrun's per-walker files (walker.tpr traj.trr md.log ener.edr state.cpt confout.gro) stay in
# scratch; the run directory's only GROMACS files are the prepared run input's.
walker_files=$(find ok-out -path ok-out/prepared -prune -o -type f \( -name '*.tpr' -o -name '*.trr' \
  -o -name 'md.log' -o -name '*.edr' -o -name '*.cpt' -o -name '*.gro' \) -print)
[ -z "$walker_files" ] || fail "walker files in the run directory: $walker_files"
[ "$(ls ok-out/shards | wc -l)" -eq 2 ] || fail "not one shard per iteration: $(ls ok-out/shards)"
pass "GROMACS campaign: 2 iterations, no walker files left"

# --- serial vs threads, kill -9 + resume: bitwise ---------------------------------------------------
checksums() { sqlite3 "$1/ledger.sqlite" "SELECT iteration, shard_checksum FROM iterations ORDER BY iteration"; }
gmx_config serial.yaml serial-out 1
"$TRAILS" run serial.yaml > serial.out 2>&1 || fail "serial run: $(cat serial.out)"
export_run ok-out threads
export_run serial-out serial
cmp threads.cvs.csv serial.cvs.csv || fail "serial and threaded CV exports differ"
[ "$(checksums ok-out)" = "$(checksums serial-out)" ] || fail "serial and threaded shards differ"
[ "$(grep -vc '^#' threads.cvs.csv)" -eq $((2 * 4 * 2 + 1)) ] || fail "not steps/stride frames per walker"
gmx_config crash.yaml crash-out 2
set +e
TRAILS_CRASH_AT=after-commit:0 "$TRAILS" run crash.yaml > crash.out 2>&1
rc=$?
set -e
[ $rc -eq 137 ] || fail "expected death by SIGKILL (137), got $rc: $(cat crash.out)"
"$TRAILS" run crash.yaml --resume > resume.out 2>&1 || fail "resume: $(cat resume.out)"
export_run crash-out crash
cmp threads.cvs.csv crash.cvs.csv || fail "resumed CV export differs"
[ "$(checksums ok-out)" = "$(checksums crash-out)" ] || fail "resumed shards differ"
pass "GROMACS campaign: serial = threads, kill -9 + --resume bitwise"

# --- phi/psi of the stored frames against mdtraj on the exported trajectory -----------------------
# DCD keeps the stored float32 positions (in Angstrom): the same frames, not XTC's 0.001-nm grid.
"$TRAILS" export ok-out --trajectory all.dcd > /dev/null || fail "export --trajectory"
/usr/bin/python3 - ok-out <<'PY' || fail "phi/psi differ from mdtraj"
import csv, glob, sys, numpy as np, mdtraj as md
run = sys.argv[1]
top = glob.glob(f"{run}/prepared/gromacs-*/topology.pdb")[0]
t = md.load("all.dcd", top=top)
_, phi = md.compute_phi(t)
_, psi = md.compute_psi(t)
rows = [r for r in csv.reader(l for l in open("threads.cvs.csv") if not l.startswith("#"))][1:]
cvs = np.array([[float(r[3]), float(r[4])] for r in rows])
assert len(cvs) == t.n_frames, (len(cvs), t.n_frames)
d = np.abs(np.angle(np.exp(1j * (np.column_stack([phi[:, 0], psi[:, 0]]) - cvs))))
print("max |dphi/dpsi| vs mdtraj on the DCD export:", d.max())
sys.exit(0 if d.max() < 1e-4 else 1)  # float32 nm -> float32 Angstrom rounding only
PY
pass "phi/psi from GROMACS frames agree with mdtraj on the exported trajectory"
