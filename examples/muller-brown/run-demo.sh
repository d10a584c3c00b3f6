#!/usr/bin/env bash
# `make demo`: a 30-iteration density-spawner campaign on the Müller–Brown potential with the
# built-in engine (a few seconds), then its per-iteration table and pictures.
set -euo pipefail
trails=$(readlink -f "${1:-build/trails}")
here=$(cd "$(dirname "$0")" && pwd)
run_dir="$here/runs/muller-brown"

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
echo "Coverage picture: $run_dir/plots/coverage.png"
