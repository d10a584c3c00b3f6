#!/usr/bin/env bash
# Per-iteration cost of system.project_file on alanine dipeptide (docs/performance.md,
# "system.project_file: one worker per campaign"): 4 walkers × 1000 steps (stride 100, 10 frames
# each), Reference platform, φ/ψ from tests/data/openmm/alad_phi_psi_project.py (mdtraj), against
# the same campaign with the built-in cvs: φ/ψ. Prints the mean MD (runner) and analysis seconds
# per iteration from the ledger.
#   bash bench/project_file_cost.sh [TRAILS] [ITERATIONS]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TRAILS=$(readlink -f "${1:-$ROOT/build/trails}")
ITERATIONS=${2:-10}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/trails-pf-cost-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
config() {  # FILE OUTDIR project_file|cvs
  local cvs="" pf=""
  if [ "$3" = cvs ]; then
    cvs=$'cvs:\n  - {name: phi, kind: phi, resid: 2}\n  - {name: psi, kind: psi, resid: 2}'
  else
    pf="  project_file: $ROOT/tests/data/openmm/alad_phi_psi_project.py"
  fi
  cat > "$1" <<YAML
outdir: $2
random_seed: 42
iterations: $ITERATIONS
$cvs
n_bins: [30, 30]
min_values: [-3.141592653589793, -3.141592653589793]
max_values: [3.141592653589793, 3.141592653589793]
system:
  conf_file: $ROOT/examples/alanine-dipeptide/alanine-dipeptide.pdb
  forcefield: [amber14-all.xml]
$pf
engine:
  md_engine: openmm
  platform_name: Reference
  dt: 0.002
  seed: 7
spawning:
  walker: 4
  step: 1000
  stride: 100
  max_workers: 2
  spawn_scheme: density
  spawn_type: hard
YAML
}
for kind in project_file cvs; do
  config "$kind.yaml" "$kind" "$kind"
  "$TRAILS" run "$kind.yaml" > "$kind.out" 2>&1 || { cat "$kind.out"; exit 1; }
  sqlite3 "$kind/ledger.sqlite" \
    "SELECT '$kind', COUNT(*), printf('%.3f', AVG(runner_s)), printf('%.3f', AVG(analysis_s)) FROM iterations" |
    awk -F'|' '{printf "%-13s iterations %s  MD %s s/iteration  analysis %s s/iteration\n", $1, $2, $3, $4}'
done
