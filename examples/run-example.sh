#!/usr/bin/env bash
# Runs one example campaign from scratch, then prints its per-iteration table and status and
# draws its pictures. Usage: run-example.sh EXAMPLE_DIR RUN_NAME PICTURE_LABEL [TRAILS_BIN]
set -euo pipefail
here=$(cd "$1" && pwd)
run_dir="$here/runs/$2"
label=$3
trails=$(readlink -f "${4:-build/trails}")

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
echo "$label: $run_dir/plots/coverage.png"
