#!/usr/bin/env bash
# `make demo`: a 20-iteration density-spawner campaign on alanine dipeptide (OpenMM, amber14 in
# vacuum, Reference platform, 8 walkers × 10 ps) over φ/ψ of residue 2, then its table, status
# and Ramachandran coverage plot.
set -euo pipefail
trails=$(readlink -f "${1:-build/trails}")
here=$(cd "$(dirname "$0")" && pwd)
run_dir="$here/runs/alanine-dipeptide"

rm -rf "$here/runs"
"$trails" run "$here/config.yaml"
echo
echo "Per-iteration table ($run_dir/output.log):"
awk -F'\t' '!/^#/ { printf "%-10s %-9s %-11s %-9s %-10s %-13s %-11s\n", $1, $2, $3, $5, $8, $9, $10 }' \
  "$run_dir/output.log"
echo
"$trails" status "$run_dir"
echo
"$trails" plot "$run_dir" -o "$run_dir/plots"
echo
echo "Ramachandran coverage (phi/psi in degrees): $run_dir/plots/coverage.png"
