#!/usr/bin/env bash
# bench/learned_overhead.sh: the per-iteration overhead of a learned-space campaign on the
# alanine-dipeptide example (docs/performance.md, "Learned-space overhead per iteration").
# Runs one short OpenMM campaign (CPU platform) per space mode at the sizes of Trails-MD's own
# learned alanine-dipeptide runs (its hpc_tests/run_local_matrix.py entries openmm_tvae,
# openmm_vampnet, openmm_spib, openmm_deep_tica: 4 walkers × 2000 steps, stride 100, 2 workers,
# 45 heavy-atom distances, latent 2, lag 2 frames, 20 epochs, feature memory on, features saved,
# retrain_freq 1 (Trails-MD's default), n_bins [18, 18]) and reads what the run records:
#   - output.log's runner_s (the iteration's MD wall time) and analysis_s (everything after
#     the MD: features, projection, the wait for a training still running, spawn, commit);
#   - the info line of each network that trained during the MD (training seconds, the wait);
#   - the debug line of each iteration element (its seconds), summed per element.
# Iteration 0 trains its first model before the spawn (nothing to overlap) and is left out.
# Not a test: prints two tables (ratios, then the analysis per element in ms per iteration).
# Usage:
#   bash bench/learned_overhead.sh [TRAILS=build/trails] [MODES="tica tvae vampnet spib deep-tica"]
#                                  [ITERATIONS=6]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
trails=$(realpath "${1:-$here/build/trails}")
modes=${2:-"tica tvae vampnet spib deep-tica"}
iterations=${3:-6}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$here/examples/alanine-dipeptide/alanine-dipeptide.pdb" "$work/"

for mode in $modes; do
  cat > "$work/$mode.yaml" <<YAML
outdir: $work/run-$mode
random_seed: 42
iterations: $iterations
space_mode: $mode
n_bins: [18, 18]
adaptive_feature_type: distances
aggregate_memory: true
save_features: true
retrain_policy: fixed
retrain_freq: 1
adaptive_model:
  latent_dim: 2
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
  step: 2000
  stride: 100
  max_workers: 2
  spawn_scheme: density
  spawn_type: hard
YAML
  (cd "$work" && "$trails" run "$mode.yaml" --log-level debug > "$mode.out" 2>&1)
done

echo "| space_mode | iterations | MD (runner_s) | analysis_s | training during MD | waited | analysis ÷ MD | (analysis − waited) ÷ MD | training ÷ MD |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for mode in $modes; do
  log="$work/run-$mode/output.log"
  read -r md analysis n < <(awk -F'\t' '!/^#/ && $1 != "iteration" && $1 >= 1 {md += $2; an += $3; n++}
    END {printf "%.3f %.3f %d\n", md, an, n}' "$log")
  read -r trained waited < <( (grep -h "training during the MD" "$work/$mode.out" || true) |
    sed -E 's/.* ([0-9.]+) s of training during the MD, ([0-9.]+) s waited.*/\1 \2/' |
    awk '{t += $1; w += $2} END {printf "%.3f %.3f\n", t, w}')
  awk -v m="$mode" -v n="$n" -v md="$md" -v an="$analysis" -v tr="$trained" -v wt="$waited" \
    'BEGIN {printf "| %s | %d | %.2f s | %.3f s | %.3f s | %.3f s | %.4f | %.4f | %.3f |\n", m, n, md, an, tr, wt, an / md, (an - wt) / md, tr / md}'
done

# The elements after the MD, in iteration order (campaign_iteration.cpp), in ms per iteration.
echo
elements=$(grep -h -oE "iteration [0-9]+: [a-z ]+ [0-9.]+ s$" "$work/"*.out |
  sed -E 's/iteration [0-9]+: (.*) [0-9.]+ s$/\1/' | awk '!seen[$0]++' |
  grep -vxE "space training|segments" | paste -sd'|')
echo "| space_mode | ${elements//|/ | } |"
echo "|---|$(sed -E 's/[^|]+/---:/g' <<<"$elements")|"
for mode in $modes; do
  grep -h -oE "iteration [0-9]+: [a-z ]+ [0-9.]+ s$" "$work/$mode.out" |
    awk -v m="$mode" -v list="$elements" '
      { it = $2 + 0; name = $0; sub(/^iteration [0-9]+: /, "", name); sub(/ [0-9.]+ s$/, "", name)
        if (it >= 1) { sum[name] += $(NF - 1); iters[it] = 1 } }
      END { n = 0; for (i in iters) n++; k = split(list, e, "|"); row = "| " m " |"
            for (j = 1; j <= k; j++) row = row sprintf(" %.1f |", 1000 * sum[e[j]] / n); print row }'
done
