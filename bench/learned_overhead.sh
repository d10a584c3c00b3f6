#!/usr/bin/env bash
# bench/learned_overhead.sh: the per-iteration overhead of a learned-space campaign on the
# alanine-dipeptide example (docs/performance.md, "Learned-space overhead per iteration").
# Runs a short OpenMM campaign (CPU platform) per space mode and reads what the run records:
# output.log's runner_s (the iteration's MD wall time) and analysis_s (everything after the MD:
# features, projection, a fit that does not overlap, spawn, commit), and the log lines of each
# network that trained during the MD (its training seconds and how long the campaign waited).
# Not a test: prints one row per mode. Usage:
#   bash bench/learned_overhead.sh [TRAILS=build/trails] [MODES="tvae vampnet"] [ITERATIONS=5]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
trails=$(realpath "${1:-$here/build/trails}")
modes=${2:-"tvae vampnet"}
iterations=${3:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/examples/alanine-dipeptide/alanine-dipeptide.pdb" "$work/"
echo "| space_mode | iterations | MD (runner_s) | analysis_s | training during MD | waited | analysis ÷ MD | (analysis − waited) ÷ MD | training ÷ MD |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for mode in $modes; do
  cat > "$work/$mode.yaml" <<YAML
outdir: $work/run-$mode
random_seed: 42
iterations: $iterations
space_mode: $mode
n_bins: [20, 20]
adaptive_feature_type: distances
retrain_policy: fixed
retrain_freq: 1
adaptive_model:
  lagtime: 2
  epochs: 20
system:
  conf_file: alanine-dipeptide.pdb
  forcefield: [amber14-all.xml]
  feature_selection: protein and not (type H)
engine:
  md_engine: openmm
  platform_name: CPU
  temperature: 300.0
  dt: 0.002
  seed: 7
spawning:
  walker: 4
  step: 5000
  stride: 100
  max_workers: 2
  spawn_scheme: density
YAML
  (cd "$work" && "$trails" run "$mode.yaml" --log-level info > "$mode.out" 2> "$mode.err")
  log="$work/run-$mode/output.log"
  # Iteration 0 trains its first model before the spawn (nothing to overlap): counted from 1.
  read -r md analysis n < <(awk -F'\t' '!/^#/ && $1 != "iteration" && $1 >= 1 {md += $2; an += $3; n++}
    END {printf "%.3f %.3f %d\n", md, an, n}' "$log")
  read -r trained waited < <(grep -h "training during the MD" "$work/$mode.err" "$work/$mode.out" |
    sed -E 's/.* ([0-9.]+) s of training during the MD, ([0-9.]+) s waited.*/\1 \2/' |
    awk '{t += $1; w += $2} END {printf "%.3f %.3f\n", t, w}')
  awk -v m="$mode" -v n="$n" -v md="$md" -v an="$analysis" -v tr="$trained" -v wt="$waited" \
    'BEGIN {printf "| %s | %d | %.2f s | %.3f s | %.3f s | %.3f s | %.4f | %.4f | %.4f |\n", m, n, md, an, tr, wt, an / md, (an - wt) / md, tr / md}'
done
