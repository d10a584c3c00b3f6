#!/usr/bin/env bash
# `trails swarm` (docs/swarm.md) on the external engines (docs/engines.md):
# 1. the command engine running the built-in engine on each task file
#    (examples/command-engine/runseg_builtin.sh) gives bitwise the built-in swarm: the same
#    metrics, reactive path and exported CVs and lineage; no walker directory is left in scratch;
# 2. GROMACS on Trails-MD's AlaD (1021 atoms, -reprod, one thread; mdrun through
#    tests/scripts/gmx-for-tests, emulated where the CPU lacks rdtscp): 2 cycles of 3 trials run,
#    the same on 1 and 2 slots, the path's frames carry the anchors' phi, no walker files left.
#    Skipped (exit 77) only where gmx mdrun can run neither natively nor under qemu.
source "$(dirname "$0")/lib/common.bash"
source "$ROOT/tests/scripts/lib/swarm.bash"
source "$ROOT/tests/scripts/lib/gromacs.bash"
mkdir scratch
export TMPDIR=$WORK/scratch  # the swarm's walker directories (a swarm's execution: block has no scratch)

fingerprint() { cut -d, -f1-10 "$1/path_0/metrics.csv" && cat "$1/path_0/reactive_path.csv"; }
same_export() {
  export_run "$1" "$1" && export_run "$2" "$2"
  cmp -s "$1.cvs.csv" "$2.cvs.csv" && cmp -s "$1.lineage.csv" "$2.lineage.csv"
}

# --- 1. command engine = built-in engine ---------------------------------------------------------
swarm_config builtin.yaml builtin "max_cycle: 3"
sed -i 's/max_trial: 16/max_trial: 4/; /^  max_cycle: 400/d' builtin.yaml
integrate_yaml builtin.yaml
export TRAILS_EXECUTABLE=$TRAILS TRAILS_BUILTIN_CONFIG=$WORK/integrate.yaml
sed -e 's#^workdir: .*#workdir: command#' -e '/potential:/d; /integrator:/d; /kT:/d; /friction:/d; /mass:/d' \
  -e "s#md_engine: builtin#md_engine: command\n  command: [$ROOT/examples/command-engine/runseg_builtin.sh]#" \
  builtin.yaml > command.yaml
"$TRAILS" swarm builtin.yaml > builtin.out 2>&1 || fail "built-in swarm: $(cat builtin.out)"
"$TRAILS" swarm command.yaml > command.out 2>&1 || fail "command-engine swarm: $(cat command.out)"
grep -q "engine      command" command.out || fail "not the command engine: $(cat command.out)"
[ "$(grep -c '^[0-9]' command/path_0/metrics.csv)" -eq 3 ] || fail "not 3 cycles: $(cat command/path_0/metrics.csv)"
diff <(fingerprint builtin) <(fingerprint command) > /dev/null ||
  fail "the command-engine swarm differs from the built-in one: $(diff <(fingerprint builtin) <(fingerprint command) | head)"
same_export builtin command || fail "the command-engine swarm's export differs from the built-in one's"
[ -z "$(ls scratch)" ] || fail "walker directories left in scratch: $(ls scratch)"
pass "a command-engine swarm is bitwise the built-in swarm (3 cycles x 4 trials)"

# --- 2. GROMACS ------------------------------------------------------------------------------------
require_gmx_mdrun
cp "$ROOT/tests/data/trails-md-examples/AlaD/"{start.gro,topol.top} .
gmx_swarm() {  # FILE WORKDIR [extra pathgennie line]
  cat > "$1" <<YAML
workdir: $2
pathgennie:
  mode: escape
  escape_metric: cv0
  max_trial: 3
  tau1_steps: 10
  tau2_steps: 10
  max_cycle: 2
  sigma: 0.1
  save_freq: 1
  seed: 3
  ${3:-}
$(alad_phi_psi_gromacs)
YAML
}
gmx_swarm g1.yaml g1
gmx_swarm g2.yaml g2 "devices: [0, 1]"
"$TRAILS" swarm g1.yaml > g1.out 2>&1 || fail "GROMACS swarm: $(cat g1.out)"
"$TRAILS" swarm g2.yaml > g2.out 2>&1 || fail "GROMACS swarm on 2 slots: $(cat g2.out)"
grep -q "2 slot(s)" g2.out || fail "not 2 slots: $(cat g2.out)"
[ "$(grep -c '^[0-9]' g1/path_0/metrics.csv)" -eq 2 ] || fail "not 2 cycles: $(cat g1/path_0/metrics.csv)"
diff <(fingerprint g1) <(fingerprint g2) > /dev/null || fail "1 and 2 slots give different GROMACS swarms"
same_export g1 g2 || fail "1 and 2 slots give different GROMACS swarm exports"
[ -z "$(ls scratch)" ] || fail "walker files left in scratch: $(ls scratch)"
# The reactive path's frames are the anchors: phi of each (mdtraj) is the metric of its cycle.
/usr/bin/python3 - g1/path_0 <<'PY' || fail "the reactive path's phi is not the anchors' metric"
import csv, sys, numpy as np, mdtraj as md
d = sys.argv[1]
t = md.load(f"{d}/reactive_path.xtc", top=f"{d}/reactive_path.pdb")
_, phi = md.compute_phi(t)
metric = [float(r["anchor_metric"]) for r in csv.DictReader(open(f"{d}/metrics.csv"))]
err = np.abs(np.angle(np.exp(1j * (phi[-len(metric):, 0] - np.array(metric)))))
print("max |phi(reactive_path.xtc) - anchor_metric|:", err.max())
sys.exit(0 if err.max() < 3e-2 else 1)  # XTC: 0.001-nm grid, up to ~0.02 rad here
PY
pass "a GROMACS swarm runs 2 cycles, the same on 1 and 2 slots, its path frames carry the anchors' phi"
